import Hummingbird
import MediaCache
import Streaming
import TunerAPI
import TunerApp

extension CacheStatisticsAnswer: ResponseEncodable {
    init(_ statistics: CacheAdmin.Statistics) {
        let cache = statistics.cache
        self.init(
            entries: cache.entries, bytes: cache.bytes, capacity: cache.capacity, hitBytes: cache.hitBytes,
            missBytes: cache.missBytes, originBytes: cache.originBytes, activeFetches: cache.activeFetches,
            lastErrors: cache.lastErrors.map(UpstreamErrorAnswer.init),
            streams: statistics.streams.mapValues(StreamCountersAnswer.init))
    }
}

extension UpstreamErrorAnswer {
    init(_ record: UpstreamErrorRecord) {
        self.init(url: record.url, status: record.status, message: record.message, at: record.at)
    }
}

extension StreamCountersAnswer {
    init(_ counters: StreamService.StreamCounters) {
        self.init(requests: counters.requests, bytes: counters.bytes)
    }
}

extension TrimResponse: ResponseEncodable {
    init(_ report: MediaCache.TrimReport) {
        self.init(
            evicted: report.evicted, bytesFreed: report.bytesFreed, entries: report.entries, bytes: report.bytes,
            milliseconds: report.milliseconds)
    }
}

extension PreloadJobAnswer: ResponseEncodable {
    init(_ job: PreloadJobs.Job) {
        self.init(
            id: job.id, url: job.url, bytesDone: job.bytesDone, bytesTotal: job.bytesTotal, state: job.state,
            error: job.error, segmentsDone: job.segmentsDone, segmentsTotal: job.segmentsTotal)
    }
}

extension PreloadList: ResponseEncodable {}

extension CacheHistoryAnswer: ResponseEncodable {}

extension CacheHistoryAnswer.Sample {
    init(_ sample: CacheHistory.Sample) {
        self.init(at: sample.at, hitBytes: sample.hitBytes, missBytes: sample.missBytes)
    }
}

extension PinAnswer {
    init(_ pin: CacheAdmin.Pin) {
        self.init(key: pin.key, url: pin.url, bytes: pin.bytes)
    }
}

extension PinList: ResponseEncodable {}
