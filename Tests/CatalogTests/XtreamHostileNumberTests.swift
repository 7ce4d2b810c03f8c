import Foundation
import Testing

@testable import Catalog

/// Numbers a panel sends are whatever the panel likes: none of them may trap the importer.
@Suite("Xtream numbers from hostile panels")
struct XtreamHostileNumberTests {
    private func value(_ json: String) throws -> XtreamValue {
        try JSONDecoder().decode([XtreamValue].self, from: Data("[\(json)]".utf8))[0]
    }

    @Test func integersAndDecimalsWithinRangeAreRead() throws {
        #expect(try value("42").int == 42)
        #expect(try value("\"42\"").int == 42)
        #expect(try value("\"42.9\"").int == 42)
        #expect(try value("7.5").int == 7)
        #expect(try value("null").int == nil)
    }

    @Test func hugeNonFiniteAndOddNumbersAreNil() throws {
        for json in [
            "1e300", "\"1e300\"", "\"-1e300\"", "\"nan\"", "\"inf\"", "\"-inf\"", "\"99999999999999999999\"",
            "1.7976931348623157e308", "\"\"",
        ] {
            #expect(try value(json).int == nil, "\(json)")
        }
    }

    @Test func durationsThatOverflowAreNil() {
        #expect(XtreamClient.VODInfo.seconds(ofDuration: "01:52:10") == 6730)
        #expect(XtreamClient.VODInfo.seconds(ofDuration: "9223372036854775807:59:59") == nil)
        #expect(XtreamClient.VODInfo.seconds(ofDuration: "153722867280912931:00") == nil)
        #expect(XtreamClient.VODInfo.seconds(ofDuration: "-1:00") == nil)
        #expect(XtreamClient.VODInfo.seconds(ofDuration: "1:2:3:4") == nil)
    }
}
