import Hummingbird
import TunerAPI

extension HealthAnswer: ResponseEncodable {}

extension ProxyURLAnswer: ResponseEncodable {}

extension MessageAnswer: ResponseEncodable {}
