/// Receives one guide import; only valid inside ``CatalogStore/replaceGuide(ofSource:produce:)``.
public protocol GuideImportSink: AnyObject {
    func addChannel(epgID: String, name: String?, icon: String?) throws
    /// Adds a programme; `stop` must be after `start`.
    func addProgramme(_ programme: GuideProgramme) throws
    /// Counts a programme the importer chose not to store (ended before the retention window).
    func skipProgramme()
    var counts: GuideImportCounts { get }
}
