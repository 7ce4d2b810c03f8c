extension WebPages {
    /// Uploads: files sent to Tuner's own tus endpoint from the browser (`uploads.js`), resumed
    /// after a reload from the offset the server kept.
    static func uploads(maxSize: Int64) -> WebPage {
        WebPage(
            title: "Uploads", section: .uploads, module: "uploads.js", name: "uploads",
            content: """
                <section class="panel" aria-labelledby="uploads-heading">
                <h1 id="uploads-heading">Uploads</h1>
                <p class="hint">Files go to Tuner's data folder (<code>uploads/</code>) by tus: an interrupted \
                upload, or one whose page was reloaded, continues where it stopped when you pick the same \
                file again. Up to \(bytes(maxSize)) a file.</p>
                <form id="upload-form" class="inline-form" data-chunk="\(8 << 20)">
                <label for="upload-files">Files</label>
                <input id="upload-files" type="file" multiple>
                <button type="submit">Upload</button>
                </form>
                <ol id="uploads" class="transfers" aria-label="Uploads"></ol>
                <p id="uploads-status" class="status" role="status"></p>
                </section>
                """)
    }
}
