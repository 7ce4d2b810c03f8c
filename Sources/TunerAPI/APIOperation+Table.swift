/// Every operation of the API. Names follow ``APIEndpoint``'s cases where one exists.
extension APIOperation {
    // The server itself.
    public static let health = Self(
        "health", "GET", "/health", .read, answer: "HealthAnswer", "Liveness (needs no token)")
    public static let openAPI = Self(
        "openAPI", "GET", "/openapi.json", .read, answer: "OpenAPI document", "This API's OpenAPI 3.1 document")
    public static let events = Self(
        "events", "GET", "/events", .read, style: .webSocket,
        "Live events (a WebSocket): transfers, cache, library and live sessions as they change")
    public static let cluster = Self(
        "cluster", "GET", "/cluster", .read, answer: "ClusterAnswer",
        "The cluster's nodes: load, heartbeat, the live channels each reads from the provider")
    public static let proxyURLs = Self(
        "proxyURLs", "POST", "/proxy-urls", .manage, request: "ProxyURLRequest", answer: "ProxyURLAnswer",
        "Mint a signed proxy URL")

    // The cache.
    public static let cacheStats = Self(
        "cacheStats", "GET", "/cache/stats", .read, answer: "CacheStatisticsAnswer",
        "What the cache holds and served")
    public static let cacheClear = Self(
        "cacheClear", "POST", "/cache/clear", .manage, answer: "MessageAnswer", "Remove everything from the cache")
    public static let cacheDelete = Self(
        "cacheDelete", "DELETE", "/cache", .manage, answer: "MessageAnswer", "Remove everything from the cache")
    public static let cacheTrim = Self(
        "cacheTrim", "POST", "/cache/trim", .manage, request: "TrimRequest", answer: "TrimResponse",
        "Evict down to a budget (default: the configured size)")
    public static let startPreload = Self(
        "startPreload", "POST", "/cache/preload", .manage, request: "PreloadRequest", answer: "PreloadJobAnswer",
        "Fill the cache with the start of a resource")
    public static let preloads = Self(
        "preloads", "GET", "/cache/preloads", .read, answer: "PreloadList", "Preload jobs")
    public static let preload = Self(
        "preload", "GET", "/cache/preloads/{id}", .read, answer: "PreloadJobAnswer", "One preload job")
    public static let cancelPreload = Self(
        "cancelPreload", "DELETE", "/cache/preloads/{id}", .manage, answer: "MessageAnswer", "Cancel a preload job")
    public static let cacheExport = Self(
        "cacheExport", "POST", "/cache/export", .manage, request: "CacheResourceRequest", answer: "MessageAnswer",
        "Hard-link a cached resource into the files root")
    public static let cachePin = Self(
        "cachePin", "POST", "/cache/pin", .manage, request: "CacheResourceRequest", answer: "MessageAnswer",
        "Keep a resource from eviction, or release it")
    public static let cacheHistory = Self(
        "cacheHistory", "GET", "/cache/history", .read, answer: "CacheHistoryAnswer",
        "What the cache served minute by minute over the last day")
    public static let cachePins = Self(
        "cachePins", "GET", "/cache/pins", .read, answer: "PinList",
        "Pinned resources (URLs without secrets) and the keys that unpin them")
    public static let unpin = Self(
        "unpin", "DELETE", "/cache/pins/{key}", .manage, "Unpin a resource by its key (204)")

    // Transfers.
    public static let transfers = Self(
        "transfers", "GET", "/transfers", .read, answer: "TransferList", "The transfer queue")
    public static let addTransfers = Self(
        "addTransfers", "POST", "/transfers", .manage, request: "AddTransfersRequest", answer: "TransferList",
        "Queue downloads or uploads")
    public static let pauseAllTransfers = Self(
        "pauseAllTransfers", "POST", "/transfers/pause-all", .manage, answer: "MessageAnswer", "Pause every transfer")
    public static let resumeAllTransfers = Self(
        "resumeAllTransfers", "POST", "/transfers/resume-all", .manage, answer: "MessageAnswer",
        "Resume every transfer")
    public static let purgeTransfers = Self(
        "purgeTransfers", "POST", "/transfers/purge", .manage, answer: "MessageAnswer", "Forget finished transfers")
    public static let transfer = Self(
        "transfer", "GET", "/transfers/{id}", .read, answer: "TransferAnswer", "One transfer with its progress")
    public static let changeTransfer = Self(
        "changeTransfer", "PATCH", "/transfers/{id}", .manage, request: "ChangeTransferRequest",
        answer: "TransferAnswer", "Pause, resume, retry, cancel, move or re-point a transfer")
    public static let removeTransfer = Self(
        "removeTransfer", "DELETE", "/transfers/{id}", .manage, answer: "MessageAnswer",
        "Remove a transfer and its file")

    // Uploads (tus).
    public static let uploadOptions = Self(
        "uploadOptions", "OPTIONS", "/uploads", .read, style: .tus, "The tus server's capabilities")
    public static let createUpload = Self(
        "createUpload", "POST", "/uploads", .manage, style: .tus, "Create an upload (optionally with its first bytes)")
    public static let uploadOptionsByID = Self(
        "uploadOptionsByID", "OPTIONS", "/uploads/{id}", .read, style: .tus, "The tus server's capabilities")
    public static let uploadOffset = Self(
        "uploadOffset", "HEAD", "/uploads/{id}", .read, style: .tus, "How much of an upload has arrived")
    public static let appendUpload = Self(
        "appendUpload", "PATCH", "/uploads/{id}", .manage, style: .tus, "Append bytes to an upload")
    public static let removeUpload = Self(
        "removeUpload", "DELETE", "/uploads/{id}", .manage, style: .tus, "Terminate an upload")
    public static let overriddenUpload = Self(
        "overriddenUpload", "POST", "/uploads/{id}", .manage, style: .tus,
        "PATCH or DELETE for clients that can only POST (X-HTTP-Method-Override)")

    // Sources.
    public static let sources = Self(
        "sources", "GET", "/sources", .read, answer: "SourceList", "Sources (no secrets)")
    public static let addSource = Self(
        "addSource", "POST", "/sources", .manage, request: "Library.NewSource", answer: "SourceAnswer",
        "Add a source")
    public static let changeSource = Self(
        "changeSource", "PATCH", "/sources/{id}", .manage, request: "SourcePatch", answer: "SourceAnswer",
        "Change a source's name, guide URLs, refresh interval or connection limit")
    public static let refreshSource = Self(
        "refreshSource", "POST", "/sources/{id}/refresh", .manage, answer: "RefreshAnswer",
        "Import a source again")
    public static let removeSource = Self(
        "removeSource", "DELETE", "/sources/{id}", .manage, answer: "MessageAnswer", "Remove a source")

    // Channels, films and series.
    public static let channels = Self(
        "channels", "GET", "/channels", .read, answer: "ChannelPage",
        "Channels, films or series: paged, filtered, searched")
    public static let checkChannels = Self(
        "checkChannels", "POST", "/channels/check", .manage, request: "CheckRequest", answer: "CheckResults",
        "Probe streams and store online/offline")
    public static let channel = Self("channel", "GET", "/channels/{id}", .read, answer: "ChannelAnswer", "One item")
    public static let playChannel = Self(
        "playChannel", "GET", "/channels/{id}/play", .play, answer: "PlayAnswer",
        "A signed proxy URL that plays the item")
    public static let channelLogo = Self(
        "channelLogo", "GET", "/channels/{id}/logo", .read,
        "The item's logo through Tuner: a redirect to a signed proxy URL")
    public static let catchup = Self(
        "catchup", "GET", "/channels/{id}/catchup", .play, answer: "CatchupAnswer",
        "A signed proxy URL that plays a past programme")
    public static let movieDetails = Self(
        "movieDetails", "GET", "/channels/{id}/details", .read, answer: "provider JSON",
        "A film's details from the provider")
    public static let episodes = Self(
        "episodes", "GET", "/channels/{id}/episodes", .read, answer: "EpisodesAnswer", "A series' seasons and episodes")
    public static let playEpisode = Self(
        "playEpisode", "GET", "/episodes/{id}/play", .play, answer: "EpisodePlayAnswer",
        "A signed proxy URL that plays an episode")
    public static let favouriteChannel = Self(
        "favouriteChannel", "PUT", "/channels/{id}/favourite", .manage, answer: "MessageAnswer",
        "Make an item a favourite")
    public static let unfavouriteChannel = Self(
        "unfavouriteChannel", "DELETE", "/channels/{id}/favourite", .manage, answer: "MessageAnswer",
        "Unfavourite an item")
    public static let groups = Self("groups", "GET", "/groups", .read, answer: "GroupList", "Groups with counts")

    // The guide.
    public static let guide = Self("guide", "GET", "/guide", .read, answer: "GridPage", "The guide grid")
    public static let guideNow = Self(
        "guideNow", "GET", "/guide/now", .read, answer: "NowNextPage", "Now and next of every channel")
    public static let channelGuide = Self(
        "channelGuide", "GET", "/channels/{id}/guide", .read, answer: "ChannelGuideAnswer", "A channel's programmes")
    public static let shortEPG = Self(
        "shortEPG", "GET", "/channels/{id}/short-epg", .read, answer: "ShortEPGAnswer",
        "Now and the next few programmes")
    public static let setGuideMapping = Self(
        "setGuideMapping", "PUT", "/channels/{id}/guide-mapping", .manage, request: "MappingRequest",
        answer: "GuideMappingAnswer", "Map a channel to a guide channel")
    public static let guideSuggestions = Self(
        "guideSuggestions", "GET", "/channels/{id}/guide-suggestions", .read, answer: "GuideSuggestionsAnswer",
        "Guide channels proposed for a channel by name, with their scores' parts")
    public static let refuseGuideSuggestion = Self(
        "refuseGuideSuggestion", "POST", "/channels/{id}/guide-suggestions/refuse", .manage,
        request: "RefuseMatchRequest", answer: "GuideSuggestionsAnswer",
        "Say a channel is not a guide channel: never matched to it by name again")
    public static let removeGuideMapping = Self(
        "removeGuideMapping", "DELETE", "/channels/{id}/guide-mapping", .manage, answer: "GuideMappingAnswer",
        "Forget a channel's guide mapping")

    // Favourites.
    public static let favourites = Self(
        "favourites", "GET", "/favourites", .read, answer: "ChannelPage",
        "Favourites in the user's order")
    public static let orderFavourites = Self(
        "orderFavourites", "PUT", "/favourites/order", .manage, request: "FavouriteOrderRequest",
        answer: "ChannelPage", "Reorder favourites")
    public static let addFavourite = Self(
        "addFavourite", "PUT", "/favourites/{id}", .manage, request: "FavouriteRequest", answer: "FavouriteAnswer",
        "Add a favourite (optionally at a position)")
    public static let removeFavourite = Self(
        "removeFavourite", "DELETE", "/favourites/{id}", .manage, answer: "FavouriteAnswer", "Remove a favourite")

    // Outputs for other players.
    public static let outputs = Self(
        "outputs", "GET", "/outputs", .admin, answer: "OutputProfileList",
        "Output profiles: their keys and the URLs players read (M3U, XMLTV, HDHomeRun)")
    public static let addOutput = Self(
        "addOutput", "POST", "/outputs", .admin, request: "OutputProfileSettings", answer: "OutputProfileAnswer",
        "Add an output profile (id required)")
    public static let changeOutput = Self(
        "changeOutput", "PATCH", "/outputs/{id}", .admin, request: "OutputProfileSettings",
        answer: "OutputProfileAnswer", "Change an output profile; given numbers stay")
    public static let removeOutput = Self(
        "removeOutput", "DELETE", "/outputs/{id}", .admin, "Remove an output profile (not the default one; 204)")
    public static let outputChannels = Self(
        "outputChannels", "GET", "/outputs/{id}/channels", .admin, answer: "OutputChannelList",
        "A profile's lineup: numbers and channels")
    public static let outputLineup = Self(
        "outputLineup", "GET", "/outputs/{id}/lineup", .admin, answer: "LineupPage",
        "The lineup editor's list: every live channel, the lineup's first, narrowed by source, group, words or guide")
    public static let outputLineupIdentities = Self(
        "outputLineupIdentities", "GET", "/outputs/{id}/lineup/identities", .admin, answer: "LineupIdentities",
        "Every channel the lineup editor's filter lets through (select all)")
    public static let changeOutputLineup = Self(
        "changeOutputLineup", "POST", "/outputs/{id}/lineup", .admin, request: "LineupChangeRequest",
        answer: "LineupChangeAnswer",
        "Add, remove, renumber, move, rename, regroup, set logos of or disable channels of a lineup, all or nothing")
    public static let acceptLineupGuides = Self(
        "acceptLineupGuides", "POST", "/outputs/{id}/lineup/guides", .admin, request: "LineupGuidesRequest",
        answer: "LineupGuidesAnswer", "Map the given channels without a guide to their best guide suggestion")
    public static let uploadLogo = Self(
        "uploadLogo", "POST", "/logos", .admin, answer: "LogoAnswer",
        "Upload a channel logo (PNG, JPEG, GIF or WebP, at most 1 MiB; 201, or 200 when it was there)")
    public static let users = Self(
        "users", "GET", "/users", .admin, answer: "OutputUserList", "Xtream logins for players (never their passwords)")
    public static let addUser = Self(
        "addUser", "POST", "/users", .admin, request: "OutputUserSettings", answer: "OutputUserAnswer",
        "Add an Xtream login (username and password required)")
    public static let changeUser = Self(
        "changeUser", "PATCH", "/users/{name}", .admin, request: "OutputUserSettings", answer: "OutputUserAnswer",
        "Change a login's profiles, limit, stream profile, expiry or password, or disable or enable it")
    public static let removeUser = Self("removeUser", "DELETE", "/users/{name}", .admin, "Remove a login (204)")

    // Live channels.
    public static let streams = Self(
        "streams", "GET", "/streams", .read, answer: "LiveStreamList",
        "The live sessions open now: channel, account, profile, viewers, rates, failovers")
    public static let stopStream = Self(
        "stopStream", "DELETE", "/streams/{id}", .manage, "Stop a live session; its viewers' streams end (204)")
    public static let alternatives = Self(
        "alternatives", "GET", "/channels/{id}/alternatives", .read, answer: "AlternativeList",
        "A live channel's alternatives, in the order failover tries them")
    public static let setAlternatives = Self(
        "setAlternatives", "PUT", "/channels/{id}/alternatives", .manage, request: "AlternativesRequest",
        answer: "AlternativeList", "Set a channel's alternatives ([] goes back to automatic ones)")

    // Time-shift.
    public static let timeshift = Self(
        "timeshift", "GET", "/channels/{id}/timeshift", .play, answer: "TimeshiftAnswer",
        "A channel's time-shift window: what it holds and where to play it")
    public static let timeshiftPlaylist = Self(
        "timeshiftPlaylist", "GET", "/channels/{id}/timeshift/index.m3u8", .play, answer: "HLS playlist",
        "The window as HLS with EXT-X-PROGRAM-DATE-TIME (`?from=&to=` in seconds since 1970 for a span)")
    public static let timeshiftSegment = Self(
        "timeshiftSegment", "GET", "/channels/{id}/timeshift/segments/{name}", .play, answer: "MPEG-TS bytes",
        "One segment of the window, as its playlist names it")
    public static let timeshiftStream = Self(
        "timeshiftStream", "GET", "/channels/{id}/timeshift/stream.mp4", .play, answer: "fragmented MP4 bytes",
        "The window for browsers from `?from=` (seconds since 1970) on, live; `?to=` ends it (a past span)")

    // The DVR.
    public static let recordings = Self(
        "recordings", "GET", "/recordings", .read, answer: "RecordingList",
        "Recordings: scheduled (with the conflicts computed ahead), recording, done, failed")
    public static let addRecording = Self(
        "addRecording", "POST", "/recordings", .manage, request: "AddRecordingRequest", answer: "RecordingAnswer",
        "Record a programme of the guide, or a channel over a span (201; 200 when it was asked for already)")
    public static let recording = Self(
        "recording", "GET", "/recordings/{id}", .read, answer: "RecordingAnswer", "One recording")
    public static let changeRecording = Self(
        "changeRecording", "PATCH", "/recordings/{id}", .manage, request: "ChangeRecordingRequest",
        answer: "RecordingAnswer", "Keep a recording from retention, or let retention have it")
    public static let removeRecording = Self(
        "removeRecording", "DELETE", "/recordings/{id}", .manage, answer: "MessageAnswer",
        "Cancel a scheduled recording; stop and delete a running one; delete a finished one with its files")
    public static let recordingFile = Self(
        "recordingFile", "GET", "/recordings/{id}/file", .play, answer: "MP4 or MPEG-TS bytes",
        "A recording's file (`?part=N` for a later part), with Range requests")
    public static let rules = Self(
        "rules", "GET", "/rules", .read, answer: "RuleList", "The DVR's rules: series, keyword and time")
    public static let addRule = Self(
        "addRule", "POST", "/rules", .manage, request: "RuleRequest", answer: "RecordingRule",
        "Add a rule; its recordings are planned at once (201)")
    public static let removeRule = Self(
        "removeRule", "DELETE", "/rules/{id}", .manage, answer: "MessageAnswer",
        "Remove a rule; its scheduled recordings go, finished ones stay")

    // Sign-in and API keys.
    public static let session = Self(
        "session", "GET", "/session", .read, answer: "SessionAnswer",
        "Who this request acts as (the owner, or an API key)")
    public static let signIn = Self(
        "signIn", "POST", "/session", .read, request: "SignInRequest", answer: "SessionAnswer",
        "Sign a browser in: the access token or an API key for a session cookie")
    public static let signOut = Self(
        "signOut", "DELETE", "/session", .read, "Sign out: the session ends and its cookie is cleared (204)")
    public static let keys = Self(
        "keys", "GET", "/keys", .admin, answer: "APIKeyList", "API keys (never their secrets)")
    public static let addKey = Self(
        "addKey", "POST", "/keys", .admin, request: "AddKeyRequest", answer: "NewAPIKeyAnswer",
        "Make an API key with a scope; its secret is in this answer only")
    public static let removeKey = Self(
        "removeKey", "DELETE", "/keys/{id}", .admin,
        "Remove an API key; browsers signed in with it are signed out (204)")

    // Backups (files on the server: they hold secrets, so no answer carries one).
    public static let backups = Self(
        "backups", "GET", "/backups", .admin, answer: "BackupListAnswer",
        "The backups in the server's backup folder, newest first, and the schedule")
    public static let addBackup = Self(
        "addBackup", "POST", "/backups", .admin, answer: "BackupAnswer",
        "Write a backup of the whole state into the server's backup folder now (201)")

    /// Every operation, in the order the API page lists them.
    public static let all: [APIOperation] = [
        .health, .openAPI, .events, .cluster, .proxyURLs,
        .cacheStats, .cacheClear, .cacheDelete, .cacheTrim, .startPreload, .preloads, .preload, .cancelPreload,
        .cacheExport, .cachePin, .cacheHistory, .cachePins, .unpin,
        .transfers, .addTransfers, .pauseAllTransfers, .resumeAllTransfers, .purgeTransfers, .transfer,
        .changeTransfer, .removeTransfer,
        .uploadOptions, .createUpload, .uploadOptionsByID, .uploadOffset, .appendUpload, .removeUpload,
        .overriddenUpload,
        .sources, .addSource, .changeSource, .refreshSource, .removeSource,
        .channels, .checkChannels, .channel, .playChannel, .channelLogo, .catchup, .movieDetails, .episodes,
        .playEpisode, .favouriteChannel, .unfavouriteChannel, .groups,
        .guide, .guideNow, .channelGuide, .shortEPG, .setGuideMapping, .removeGuideMapping, .guideSuggestions,
        .refuseGuideSuggestion,
        .favourites, .orderFavourites, .addFavourite, .removeFavourite,
        .outputs, .addOutput, .changeOutput, .removeOutput, .outputChannels, .outputLineup,
        .outputLineupIdentities, .changeOutputLineup, .acceptLineupGuides, .uploadLogo, .users, .addUser, .changeUser,
        .removeUser,
        .streams, .stopStream, .alternatives, .setAlternatives,
        .timeshift, .timeshiftPlaylist, .timeshiftSegment, .timeshiftStream,
        .recordings, .addRecording, .recording, .changeRecording, .removeRecording, .recordingFile, .rules,
        .addRule, .removeRule,
        .session, .signIn, .signOut, .keys, .addKey, .removeKey, .backups, .addBackup,
    ]
}
