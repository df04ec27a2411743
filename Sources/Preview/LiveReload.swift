import Foundation
import Synchronization

/// Tells every open page what the builds are doing, over Server-Sent Events: `reload` after a
/// successful rebuild, `failed` with the message after a failed one (the page shows a banner and
/// keeps the last good site).
final class LiveReload: Sendable {
    static let eventsPath = "/__gallerygen/events"

    enum Event: Sendable, Equatable {
        case reload
        case failed(String)

        /// The event as SSE text.
        var text: String {
            switch self {
            case .reload:
                return "event: reload\ndata: ok\n\n"
            case .failed(let message):
                let data = message.split(separator: "\n", omittingEmptySubsequences: false).map { "data: \($0)" }
                return "event: failed\n" + data.joined(separator: "\n") + "\n\n"
            }
        }
    }

    private struct State {
        var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextID = 0
        /// The last build's error, for pages opened after it.
        var lastError: String?
    }

    private let state = Mutex(State())
    /// Streams open at once; past it ``subscribe()`` says no.
    let maxSubscribers: Int

    init(maxSubscribers: Int = 256) {
        self.maxSubscribers = maxSubscribers
    }

    /// A stream of events for one page, and a function that ends it (its page went away); it
    /// also ends when the server stops. Nil when ``maxSubscribers`` streams are open.
    func subscribe() -> (AsyncStream<Event>, end: @Sendable () -> Void)? {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(8))
        let id = state.withLock { state -> Int? in
            guard state.subscribers.count < maxSubscribers else { return nil }
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return (stream, { continuation.finish() })
    }

    func publish(_ event: Event) {
        let subscribers = state.withLock { state in
            if case .failed(let message) = event { state.lastError = message } else { state.lastError = nil }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    var lastError: String? { state.withLock { $0.lastError } }

    /// Ends every stream (server shutting down).
    func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// The script the server adds to each HTML page it sends (never to the built file): listens
    /// for events, reloads, or shows the build error in a banner.
    func script() -> String {
        let initialError = lastError.map { Self.javaScriptString($0) } ?? "null"
        return """
            <script>/* gallerygen serve: live reload */(function () {
              function banner(message) {
                var node = document.getElementById("gallerygen-error");
                if (!message) { if (node) node.remove(); return; }
                if (!node) {
                  node = document.createElement("pre");
                  node.id = "gallerygen-error";
                  node.setAttribute("role", "alert");
                  node.style.cssText = "position:fixed;left:0;right:0;bottom:0;margin:0;padding:12px 16px;max-height:40vh;"
                    + "overflow:auto;background:#8b1a1a;color:#fff;font:13px/1.4 ui-monospace,monospace;z-index:2147483647;white-space:pre-wrap";
                  document.body.appendChild(node);
                }
                node.textContent = "Build failed; showing the last good site.\\n" + message;
              }
              banner(\(initialError));
              var source = new EventSource("\(Self.eventsPath)");
              source.addEventListener("reload", function () { location.reload(); });
              source.addEventListener("failed", function (event) { banner(event.data); });
            })();</script>
            """
    }

    /// Inserts the script before `</body>` (or at the end when there is none).
    func inject(into html: String) -> String {
        let script = script()
        guard let range = html.range(of: "</body>", options: [.caseInsensitive, .backwards]) else {
            return html + script
        }
        return html.replacingCharacters(in: range, with: script + "\n</body>")
    }

    static func javaScriptString(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        // Inside a <script>, "</" must not appear.
        return String(array.dropFirst().dropLast()).replacingOccurrences(of: "</", with: "<\\/")
    }
}
