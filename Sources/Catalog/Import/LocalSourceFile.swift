import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens a local playlist or guide for reading, regular files only.
///
/// The type is judged on what was opened (`fstat` on the descriptor), not on the name: a path
/// naming a device (`/dev/zero` never ends), a FIFO (blocks forever), a socket or a folder, or a
/// symbolic link to one, is refused before a byte is read. `O_NONBLOCK` keeps the open itself
/// from waiting on a FIFO without a writer; it is cleared again for the regular file.
public enum LocalSourceFile {
    /// A read handle on `path` when it is a regular file; otherwise why not.
    static func open(_ path: String) throws -> FileHandle {
        let descriptor = path.withCString { systemOpen($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw CatalogError.fetchFailed("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw CatalogError.fetchFailed("cannot read \(path): \(reason)")
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(descriptor)
            throw CatalogError.fetchFailed(
                "\(path) is \(describe(type)), not a regular file; playlists and guides are read only from files")
        }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Throws unless `path` is a regular file that can be opened for reading (the check a
    /// location the user typed gets before it is stored).
    public static func check(_ path: String) throws {
        try open(path).close()
    }

    private static func describe(_ type: mode_t) -> String {
        switch type {
        case S_IFDIR: "a folder"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "a special file"
        }
    }

    private static func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags)
        #else
            Darwin.open(path, flags)
        #endif
    }
}
