import GRDB
import TunerStorage

/// The catalog's tables in ``TunerDatabase``.
public enum CatalogSchema: DatabaseSchema {
    /// Every schema change, in order. Constraints live here rather than in Swift so that no code
    /// path (or a future PostgreSQL twin reading the same rules) can store an inconsistent catalog.
    public static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("catalog-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE catalogSource (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL CHECK (kind IN ('m3u', 'xtream', 'xmltv')),
                        name TEXT NOT NULL,
                        location TEXT NOT NULL CHECK (location <> ''),
                        xtreamServer TEXT,
                        xtreamUsername TEXT,
                        xtreamPassword TEXT,
                        epgURLs TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(epgURLs)),
                        refreshInterval REAL NOT NULL DEFAULT 86400 CHECK (refreshInterval > 0),
                        lastRefresh REAL,
                        lastError TEXT,
                        status TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'refreshing', 'ok', 'failed')),
                        -- Bumped by every import; rows of older generations are what the import removed.
                        generation INTEGER NOT NULL DEFAULT 0,
                        CHECK (kind <> 'xtream' OR (xtreamServer IS NOT NULL AND xtreamUsername IS NOT NULL AND
                            xtreamPassword IS NOT NULL))
                    );
                    CREATE TABLE catalogGroup (
                        id INTEGER PRIMARY KEY,
                        sourceID INTEGER NOT NULL REFERENCES catalogSource(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL CHECK (kind IN ('live', 'movie', 'series')),
                        name TEXT NOT NULL,
                        generation INTEGER NOT NULL,
                        UNIQUE (sourceID, kind, name)
                    );
                    CREATE INDEX catalogGroup_byName ON catalogGroup(kind, name);
                    CREATE TABLE catalogItem (
                        id INTEGER PRIMARY KEY,
                        sourceID INTEGER NOT NULL REFERENCES catalogSource(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL CHECK (kind IN ('live', 'movie', 'series')),
                        identity TEXT NOT NULL,
                        name TEXT NOT NULL,
                        normalizedName TEXT NOT NULL,
                        groupID INTEGER REFERENCES catalogGroup(id) ON DELETE SET NULL,
                        -- The group's name again, so the search index can use this table as its content.
                        groupName TEXT,
                        tvgID TEXT,
                        tvgName TEXT,
                        logo TEXT,
                        number TEXT,
                        url TEXT,
                        headers TEXT CHECK (headers IS NULL OR json_valid(headers)),
                        catchupType TEXT,
                        catchupDays INTEGER,
                        catchupSource TEXT,
                        tvgShift REAL,
                        isRadio INTEGER NOT NULL DEFAULT 0 CHECK (isRadio IN (0, 1)),
                        providerID TEXT,
                        position INTEGER NOT NULL,
                        generation INTEGER NOT NULL,
                        CHECK (kind = 'series' OR url IS NOT NULL)
                    );
                    -- Also serves favourites, which join on (kind, identity) across sources.
                    CREATE UNIQUE INDEX catalogItem_identity ON catalogItem(kind, identity, sourceID);
                    CREATE INDEX catalogItem_order ON catalogItem(kind, sourceID, position);
                    CREATE INDEX catalogItem_group ON catalogItem(groupID, position);
                    CREATE TABLE catalogEpisode (
                        id INTEGER PRIMARY KEY,
                        seriesID INTEGER NOT NULL REFERENCES catalogItem(id) ON DELETE CASCADE,
                        season INTEGER,
                        episode INTEGER,
                        title TEXT NOT NULL,
                        url TEXT NOT NULL,
                        headers TEXT CHECK (headers IS NULL OR json_valid(headers)),
                        duration REAL,
                        position INTEGER NOT NULL
                    );
                    CREATE INDEX catalogEpisode_series ON catalogEpisode(seriesID, position);
                    -- Keyed by identity, not by row id, so favourites survive refreshes and re-adding a source.
                    CREATE TABLE catalogFavourite (
                        kind TEXT NOT NULL CHECK (kind IN ('live', 'movie', 'series')),
                        identity TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        addedAt REAL NOT NULL,
                        PRIMARY KEY (kind, identity)
                    ) WITHOUT ROWID;
                    CREATE INDEX catalogFavourite_order ON catalogFavourite(position);
                    -- Names and groups for search, over catalogItem's own columns (external content):
                    -- rebuilt in one pass after each import, which is far cheaper than deleting and
                    -- inserting index entries row by row.
                    CREATE VIRTUAL TABLE catalogSearch USING fts5(
                        name, groupName,
                        content = 'catalogItem', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 2'
                    );
                    """)
        }
        migrator.registerMigration("catalog-v2-guide") { db in
            try db.execute(
                sql: """
                    -- The channels of a guide, per source (an XMLTV source, or an M3U source's guide URLs).
                    CREATE TABLE guideChannel (
                        id INTEGER PRIMARY KEY,
                        sourceID INTEGER NOT NULL REFERENCES catalogSource(id) ON DELETE CASCADE,
                        -- Guides and playlists disagree on the case of ids ("BBC1.uk", "bbc1.uk").
                        epgID TEXT NOT NULL COLLATE NOCASE,
                        name TEXT,
                        normalizedName TEXT,
                        icon TEXT,
                        UNIQUE (sourceID, epgID)
                    );
                    CREATE INDEX guideChannel_epgID ON guideChannel(epgID);
                    CREATE INDEX guideChannel_name ON guideChannel(normalizedName);
                    CREATE TABLE guideProgramme (
                        id INTEGER PRIMARY KEY,
                        guideChannelID INTEGER NOT NULL REFERENCES guideChannel(id) ON DELETE CASCADE,
                        start INTEGER NOT NULL,
                        stop INTEGER NOT NULL,
                        title TEXT NOT NULL,
                        subtitle TEXT,
                        description TEXT,
                        category TEXT,
                        icon TEXT,
                        season INTEGER,
                        episode INTEGER,
                        catchupID TEXT,
                        CHECK (stop > start)
                    );
                    -- Now/next seeks the last start before now; the grid scans a start range.
                    CREATE INDEX guideProgramme_channelStart ON guideProgramme(guideChannelID, start);
                    CREATE INDEX guideProgramme_stop ON guideProgramme(stop);
                    -- The user's choice of guide channel for an item, by identity so it survives refreshes.
                    CREATE TABLE guideMapping (
                        kind TEXT NOT NULL CHECK (kind IN ('live', 'movie', 'series')),
                        identity TEXT NOT NULL,
                        epgID TEXT NOT NULL COLLATE NOCASE,
                        PRIMARY KEY (kind, identity)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("catalog-v3-checks-details") { db in
            try db.execute(
                sql: """
                    -- The last probe of an item's stream. Keyed by row id: ids survive refreshes while
                    -- the identity does, and a channel that disappears takes its check with it.
                    CREATE TABLE streamCheck (
                        itemID INTEGER PRIMARY KEY REFERENCES catalogItem(id) ON DELETE CASCADE,
                        online INTEGER NOT NULL CHECK (online IN (0, 1)),
                        checkedAt REAL NOT NULL,
                        reason TEXT NOT NULL
                    );
                    -- A movie's details from the provider (Xtream get_vod_info), as JSON.
                    CREATE TABLE movieDetails (
                        itemID INTEGER PRIMARY KEY REFERENCES catalogItem(id) ON DELETE CASCADE,
                        details TEXT NOT NULL CHECK (json_valid(details)),
                        fetchedAt REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("catalog-v4-search-prefixes") { db in
            // Prefix indexes for two- and three-letter prefixes, the ones people type first:
            // "the"* otherwise merges the lists of every word starting with "the" on each search
            // (3x slower), and the index costs a twentieth of a second on a 200,000-entry import.
            try db.execute(
                sql: """
                    DROP TABLE catalogSearch;
                    CREATE VIRTUAL TABLE catalogSearch USING fts5(
                        name, groupName,
                        content = 'catalogItem', content_rowid = 'id',
                        tokenize = 'unicode61 remove_diacritics 2',
                        prefix = '2 3'
                    );
                    INSERT INTO catalogSearch (catalogSearch) VALUES ('rebuild');
                    """)
        }
        migrator.registerMigration("catalog-v5-live") { db in
            try db.execute(
                sql: """
                    -- How many streams the account allows at once: the user's setting, and what an
                    -- Xtream panel's user_info says; NULL is unset (unlimited when both are).
                    ALTER TABLE catalogSource ADD COLUMN maxConnections INTEGER
                        CHECK (maxConnections IS NULL OR maxConnections BETWEEN 1 AND 1000);
                    ALTER TABLE catalogSource ADD COLUMN providerMaxConnections INTEGER
                        CHECK (providerMaxConnections IS NULL OR providerMaxConnections BETWEEN 1 AND 1000);
                    -- A channel's alternatives in the user's order, when the user set them (otherwise
                    -- they are found by tvg-id and name in other sources).
                    CREATE TABLE channelAlternative (
                        itemID INTEGER NOT NULL REFERENCES catalogItem(id) ON DELETE CASCADE,
                        alternativeID INTEGER NOT NULL REFERENCES catalogItem(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        PRIMARY KEY (itemID, alternativeID),
                        CHECK (itemID <> alternativeID)
                    );
                    """)
        }
        migrator.registerMigration("catalog-v6-guide-matching") { db in
            try db.execute(sql: Self.v6GuideMatching)
        }
    }

    /// Guide channels matched to items by name (``GuideMatcher``'s automatic matches), made
    /// again after every import, and the matches the user refused; by identity, as the user's
    /// mappings are. (A mapping to the empty id says "no guide".)
    static let v6GuideMatching = """
        CREATE TABLE guideAutoMatch (
            kind TEXT NOT NULL CHECK (kind IN ('live', 'movie', 'series')),
            identity TEXT NOT NULL,
            epgID TEXT NOT NULL COLLATE NOCASE,
            score INTEGER NOT NULL CHECK (score BETWEEN 0 AND 100),
            PRIMARY KEY (kind, identity)
        ) WITHOUT ROWID;
        -- Guide channels the user said a channel is not: never matched to it automatically again.
        CREATE TABLE guideMatchRefusal (
            kind TEXT NOT NULL CHECK (kind IN ('live', 'movie', 'series')),
            identity TEXT NOT NULL,
            epgID TEXT NOT NULL COLLATE NOCASE,
            PRIMARY KEY (kind, identity, epgID)
        ) WITHOUT ROWID;
        """

    /// Imports write batches through the `importBatch` virtual table (see ImportBatchTable).
    public static func prepare(_ db: Database) throws {
        try ImportBatchTable.register(db)
    }
}
