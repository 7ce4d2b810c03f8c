import Foundation
import Hummingbird
import LiveTV
import TunerAPI
import TunerApp

/// The cluster over HTTP: its nodes (`GET /api/v1/cluster`) and the relay another node reads a
/// channel from (`GET /internal/live/{id}`, which the request guard lets through only with the
/// cluster's relay secret, and which is no part of the API or its document).
struct ClusterController {
    let engine: TunerEngine

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.cluster) { [engine] _, _ in try await engine.clusterStatus.answer() }
        router.get("/internal/live/:id") { [engine] request, context in
            let id = try context.parameters.require("id", as: Int64.self)
            // The relaying node's viewers: served from this node's own session (joined at a
            // keyframe), never relayed on.
            var live = LiveSessions.Request(
                channelID: id, address: "node " + LiveController.address(of: context),
                priority: LiveSessions.Priority.owner)
            live.relayed = true
            return try await LiveController.stream(live, engine: engine, head: false)
        }
    }
}

extension ClusterAnswer: ResponseEncodable {}
