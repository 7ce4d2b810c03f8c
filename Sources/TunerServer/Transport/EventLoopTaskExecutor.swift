import NIOCore

/// Runs a task's jobs on one NIO event loop: set as a connection's task executor preference, the
/// handler runs on the thread that reads and writes its socket.
///
/// Without it every request crosses threads four times (the event loop hands the parsed head to
/// Swift's global pool, each response write goes back), each crossing a futex or eventfd wake-up:
/// for a small cached answer that was about as much work as the answer itself. The cost is that
/// a handler that blocks its thread now also holds the connections sharing that loop, so
/// handlers keep blocking work (big parses, SQLite writes) off the request's own task.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
