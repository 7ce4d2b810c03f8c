import Foundation
import Hummingbird
import TunerAPI
import TunerApp

/// The backups over HTTP, for `admin` only: the list (`GET /api/v1/backups`) and a backup written
/// now (`POST /api/v1/backups`, the web app's button). The files are never served: they hold the
/// token and the providers' passwords.
struct BackupsController {
    let backups: Backups

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.backups) { [backups] _, _ in backups.list() }
        router.add(.addBackup) { [backups] request, context in
            try EditedResponse(status: .created, response: try await backups.makeNow())
                .response(from: request, context: context)
        }
    }
}

extension BackupAnswer: ResponseEncodable {}
extension BackupListAnswer: ResponseEncodable {}
