extension OutputNumbering {
    /// Numbers set aside for each later profile of a login: its channels whose own number an
    /// earlier channel of the login holds move up by this much times the profile's position.
    public static let loginBlock = 1_000_000

    /// One lineup for a login from its profiles' lineups (in the login's order): the profiles
    /// merged, a channel in several profiles listed once (with its first profile's number), and
    /// one number per channel, so the ids made from it (``OutputChannel/guideID``, Xtream's `num`
    /// and `epg_channel_id`, the XMLTV channel ids) never collide between profiles.
    ///
    /// A channel keeps its profile's number when no earlier channel of the login holds it;
    /// otherwise it takes `position × loginBlock + number` (position 1 for the second profile),
    /// which only that profile can give and which depends only on that profile's own number, so
    /// it stays put while the login's profiles keep their numbers. Profiles given separate
    /// ranges (`start`) keep their own numbers everywhere.
    public static func merged(_ lineups: [[OutputChannel]]) -> [OutputChannel] {
        var seen = Set<Int64>()
        var taken = Set<Int>()
        var merged: [OutputChannel] = []
        for (position, lineup) in lineups.enumerated() {
            for var channel in lineup where seen.insert(channel.item.id).inserted {
                if taken.contains(channel.number) {
                    // Profile numbers are at most `highest` (< loginBlock), so a moved number can
                    // meet neither a kept one nor another profile's moved ones; the loop is a guard.
                    let (block, overflow) = position.multipliedReportingOverflow(by: loginBlock)
                    var number = overflow ? Int.max / 2 : block + channel.number
                    while taken.contains(number) && number < Int.max { number += 1 }
                    channel.number = number
                }
                taken.insert(channel.number)
                merged.append(channel)
            }
        }
        return merged
    }
}
