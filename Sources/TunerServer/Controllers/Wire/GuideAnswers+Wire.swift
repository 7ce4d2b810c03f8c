import Hummingbird
import TunerAPI

extension NowNextPage: ResponseEncodable {}

extension GridPage: ResponseEncodable {}

extension ChannelGuideAnswer: ResponseEncodable {}

extension GuideMappingAnswer: ResponseEncodable {}

extension GuideSuggestionsAnswer: ResponseEncodable {}

extension CatchupAnswer: ResponseEncodable {}

extension CheckResults: ResponseEncodable {}
