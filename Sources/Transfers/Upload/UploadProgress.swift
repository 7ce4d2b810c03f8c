/// How far an upload has come, reported while it runs.
public struct UploadProgress: Sendable, Hashable {
    /// Bytes handed to the connection so far, including ones the server has not confirmed yet.
    public var bytesSent: Int64
    /// Bytes the server confirmed it holds (tus: its `Upload-Offset`; plain uploads: all of
    /// them once the server answered 2xx, zero before).
    public var bytesConfirmed: Int64
    /// The file's size.
    public var totalBytes: Int64

    public init(bytesSent: Int64, bytesConfirmed: Int64, totalBytes: Int64) {
        self.bytesSent = bytesSent
        self.bytesConfirmed = bytesConfirmed
        self.totalBytes = totalBytes
    }
}
