/// One URI in a playlist (a URI line or a URI-valued attribute), as the rewriter sees it.
public struct HLSURIReference: Sendable, Hashable {
    /// The URI with variables applied, not resolved against the playlist URL.
    public let uri: String
    public let kind: HLSURIKind
    /// The 1-based line number.
    public let line: Int
    /// The tag holding the URI; nil for a URI line.
    public let tagName: HLSTagName?
    /// The attribute holding the URI (`URI`, `SERVER-URI`, `X-ASSET-URI`…); nil for a URI line.
    public let attribute: String?
}
