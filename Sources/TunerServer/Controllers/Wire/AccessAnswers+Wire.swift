import Hummingbird
import TunerAPI
import TunerApp

extension SessionAnswer: ResponseEncodable {
    init(_ principal: AccessPrincipal) {
        self.init(scope: principal.scope.rawValue, name: principal.name, keyID: principal.keyID)
    }
}

extension APIKeyAnswer {
    init(_ key: APIKey) {
        self.init(
            id: key.id, name: key.name, scope: key.scope.rawValue, hint: key.hint, createdAt: key.createdAt,
            lastUsedAt: key.lastUsedAt)
    }
}

extension APIKeyList: ResponseEncodable {}

extension NewAPIKeyAnswer: ResponseEncodable {}
