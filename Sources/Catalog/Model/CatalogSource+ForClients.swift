extension CatalogSource {
    /// The source as the API shows it: an Xtream account's password is never sent back (it stays
    /// in the database for refreshes), so listing sources does not leak a provider's credentials.
    public var forClients: CatalogSource {
        var shown = self
        shown.xtream?.password = ""
        return shown
    }
}
