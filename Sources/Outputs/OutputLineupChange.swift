import Foundation

/// One change of a profile's lineup as the lineup editor sends it, applied whole or not at all:
/// channels added and removed, numbers given, names, groups and logos set, channels disabled.
///
/// The parts apply in the order they are listed here, so one change can add channels and number
/// them. Channels are named by identity (stable across refreshes), so a change made before a
/// refresh still means the same channels after it.
public struct OutputLineupChange: Sendable, Hashable {
    /// Into the lineup: taken out of `exclude` and put in `include`.
    public var add: [String]
    /// Out of the lineup: taken out of `include` and (for a lineup described by rules) put in
    /// `exclude`; their numbers are forgotten, so they come back as new channels.
    public var remove: [String]
    /// Channels of the lineup given `from`, `from + 1`, … in the order listed, skipping the
    /// numbers of the lineup's other channels.
    public var renumber: Renumber?
    /// A channel moved to a number (a drag in the editor): the channels from that number up to
    /// the next free one move up by one to make room.
    public var place: Place?
    /// Names, groups, logos and disabled flags.
    public var edits: [Edit]

    public init(
        add: [String] = [], remove: [String] = [], renumber: Renumber? = nil, place: Place? = nil, edits: [Edit] = []
    ) {
        self.add = add
        self.remove = remove
        self.renumber = renumber
        self.place = place
        self.edits = edits
    }

    public struct Renumber: Sendable, Hashable {
        public var identities: [String]
        public var from: Int

        public init(identities: [String], from: Int) {
            self.identities = identities
            self.from = from
        }
    }

    public struct Place: Sendable, Hashable {
        public var identity: String
        public var number: Int

        public init(identity: String, number: Int) {
            self.identity = identity
            self.number = number
        }
    }

    /// What to change of one channel: a field left nil stays, an empty string goes back to the
    /// playlist's.
    public struct Edit: Sendable, Hashable {
        public var identity: String
        public var name: String?
        public var group: String?
        /// An `http(s)` URL, or `upload:<name>` of a ``ChannelLogo``.
        public var logo: String?
        public var disabled: Bool?

        public init(
            identity: String, name: String? = nil, group: String? = nil, logo: String? = nil, disabled: Bool? = nil
        ) {
            self.identity = identity
            self.name = name
            self.group = group
            self.logo = logo
            self.disabled = disabled
        }
    }

    /// The most identities one change or one profile's `include`/`exclude` may list.
    public static let largest = 100_000

    /// Whether the change asks for anything at all.
    public var isEmpty: Bool { add.isEmpty && remove.isEmpty && renumber == nil && place == nil && edits.isEmpty }

    /// Refuses what no lineup could take, before anything is read: too many identities, numbers
    /// out of range, names or groups too long, a logo that is neither a web address nor an upload.
    public func check() throws(OutputError) {
        let counts = [add.count, remove.count, renumber?.identities.count ?? 0, edits.count]
        guard counts.allSatisfy({ $0 <= Self.largest }) else {
            throw OutputError(.invalid, "a lineup change may name at most \(Self.largest) channels in each part")
        }
        let identities = add + remove + (renumber?.identities ?? []) + edits.map(\.identity) + [place?.identity ?? "x"]
        guard identities.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 1_000 }) else {
            throw OutputError(.invalid, "a channel identity must have 1 to 1000 bytes")
        }
        let range = 1...OutputNumbering.highest
        if let renumber {
            guard range.contains(renumber.from) else {
                throw OutputError(.invalid, "renumber.from must be from 1 to \(OutputNumbering.highest)")
            }
        }
        if let place, !range.contains(place.number) {
            throw OutputError(.invalid, "place.number must be from 1 to \(OutputNumbering.highest)")
        }
        for edit in edits {
            if let name = edit.name, name.count > 200 || name.utf8.contains(0) {
                throw OutputError(.invalid, "a channel's name must have at most 200 characters")
            }
            if let group = edit.group, group.count > 200 || group.utf8.contains(0) {
                throw OutputError(.invalid, "a channel's group must have at most 200 characters")
            }
            if let logo = edit.logo, !logo.isEmpty, !Self.isLogo(logo) {
                throw OutputError(
                    .invalid,
                    "a logo must be an http(s) address of at most 2000 characters, or an uploaded logo (upload:<name>)")
            }
        }
    }

    static func isLogo(_ value: String) -> Bool {
        if ChannelLogo(reference: value) != nil { return true }
        guard value.utf8.count <= 2_000, let url = URL(string: value), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else { return false }
        return true
    }

    // MARK: Applying

    /// The selection and the per-channel edits of `profile` after this change.
    public func applySettings(to profile: inout OutputProfile) {
        var selection = profile.selection
        if !add.isEmpty {
            let added = Set(add)
            selection.exclude.removeAll { added.contains($0) }
            var included = Set(selection.include)
            for identity in add where included.insert(identity).inserted { selection.include.append(identity) }
        }
        if !remove.isEmpty {
            let removed = Set(remove)
            selection.include.removeAll { removed.contains($0) }
            if !selection.pickedOnly {
                var excluded = Set(selection.exclude)
                for identity in remove where excluded.insert(identity).inserted { selection.exclude.append(identity) }
            }
        }
        profile.selection = selection
        for edit in edits {
            if let name = edit.name {
                let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
                profile.renames[edit.identity] = trimmed.isEmpty ? nil : trimmed
            }
            var channel = profile.edits[edit.identity] ?? OutputChannelEdit()
            if let group = edit.group {
                let trimmed = group.trimmingCharacters(in: .whitespacesAndNewlines)
                channel.group = trimmed.isEmpty ? nil : trimmed
            }
            if let logo = edit.logo { channel.logo = logo.isEmpty ? nil : logo }
            if let disabled = edit.disabled { channel.disabled = disabled }
            profile.edits[edit.identity] = channel.isEmpty ? nil : channel
        }
    }

    /// The numbers after this change, given the lineup's channels after it (`members`, in output
    /// order, numbered or not) and the numbers recorded before it (of members and of channels that
    /// left for a while, which keep theirs).
    public func applyNumbers(
        members: [(key: OutputChannelKey, playlistNumber: String?)], numbering: OutputNumbering,
        numbers old: [OutputChannelKey: Int]
    ) throws(OutputError) -> [OutputChannelKey: Int] {
        var numbers = old
        let removed = Set(remove)
        for key in old.keys where removed.contains(key.identity) { numbers[key] = nil }
        // New members take numbers by the profile's rule first, so the rest can move them.
        let assigned = numbering.assign(members, existing: numbers).added
        numbers.merge(assigned) { _, new in new }
        var keyOf: [String: OutputChannelKey] = [:]
        for member in members where keyOf[member.key.identity] == nil { keyOf[member.key.identity] = member.key }
        func key(_ identity: String) throws(OutputError) -> OutputChannelKey {
            guard let key = keyOf[identity], numbers[key] != nil else {
                throw OutputError(.notFound, "the channel '\(identity)' is not in the lineup: add it first")
            }
            return key
        }
        let memberKeys = Set(members.map(\.key))
        if let renumber {
            var keys: [OutputChannelKey] = []
            var seen = Set<OutputChannelKey>()
            for identity in renumber.identities {
                let key = try key(identity)
                if seen.insert(key).inserted { keys.append(key) }
            }
            let taken = Set(memberKeys.subtracting(seen).compactMap { numbers[$0] })
            var next = renumber.from
            for key in keys {
                while taken.contains(next) { next += 1 }
                guard next <= OutputNumbering.highest else {
                    throw OutputError(
                        .invalid,
                        "renumbering \(keys.count) channels from \(renumber.from) passes \(OutputNumbering.highest)")
                }
                numbers[key] = next
                next += 1
            }
        }
        if let place {
            let moved = try key(place.identity)
            var holder: [Int: OutputChannelKey] = [:]
            for key in memberKeys where key != moved {
                if let number = numbers[key] { holder[number] = key }
            }
            var end = place.number
            while holder[end] != nil { end += 1 }
            guard end <= OutputNumbering.highest else {
                throw OutputError(.invalid, "no free number above \(place.number) to make room for the channel")
            }
            // From the top down, so no two channels ever share a number on the way.
            for number in stride(from: end - 1, through: place.number, by: -1) {
                if let key = holder[number] { numbers[key] = number + 1 }
            }
            numbers[moved] = place.number
        }
        // A channel away from the lineup gives up a number a member now has.
        let memberNumbers = Set(memberKeys.compactMap { numbers[$0] })
        for (key, number) in numbers where !memberKeys.contains(key) && memberNumbers.contains(number) {
            numbers[key] = nil
        }
        return numbers
    }
}
