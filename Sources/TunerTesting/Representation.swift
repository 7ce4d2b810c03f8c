/// The validators and length of one version of a served resource.
struct Representation {
    var etag: String
    var lastModified: String
    var length: Int
    var contentType: String

    func matches(ifNoneMatch header: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingWhitespace()
            return tag == "*" || tag == etag || tag == "W/\(etag)"
        }
    }
}
