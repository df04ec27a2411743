import AsyncHTTPClient
import Foundation
import GalleryConcurrency
import GalleryCore
import Synchronization
import TestSupport
import Testing

@testable import Loading

/// The remote tier's objects: signed with the site's key, and read within a memory budget.
@Suite struct RemoteTierTests {
    /// A store in memory.
    final class MemoryStore: RemoteStore {
        let objects = Mutex<[String: Data]>([:])
        var displayName: String { "memory" }

        func get(_ key: String, limit: Int, budget: ByteBudget) async throws -> (data: Data, reserved: Int)? {
            objects.withLock { $0[key] }.map { ($0, 0) }
        }

        func exists(_ key: String) async throws -> Bool { objects.withLock { $0[key] != nil } }
        func put(_ key: String, _ data: Data) async throws { objects.withLock { $0[key] = data } }
    }

    final class Held: Sendable {
        let counts = Mutex((now: 0, peak: 0))
    }

    let key = SigningKey(secret: "the site's secret")
    let payload = Data(#"{"url":"https://example.com/a.jpg"}"#.utf8)

    func read(_ cache: RemoteCache, _ name: String) async -> Data? {
        await cache.read(.url, name) { $0 }
    }

    @Test func withAKeyOnlyWhatTheKeySignedIsTaken() async throws {
        let store = MemoryStore()
        let signed = RemoteCache(store: store, signingKey: key)
        await signed.write(.url, "a", payload: payload)
        let object = try #require(store.objects.withLock { $0["v1/urls/a"] })
        #expect(String(decoding: object.prefix { $0 != 0x0A }, as: UTF8.self).split(separator: " ").count == 6)
        #expect(await read(signed, "a") == payload)

        // Moved under another key, sealed without a MAC, or signed with another key: ignored.
        store.objects.withLock { $0["v1/urls/b"] = object }
        store.objects.withLock {
            $0["v1/urls/c"] = Envelope.seal(payload, kind: "urls", key: "v1/urls/c", signingKey: nil)
        }
        let other = SigningKey(secret: "someone else's")
        store.objects.withLock {
            $0["v1/urls/d"] = Envelope.seal(payload, kind: "urls", key: "v1/urls/d", signingKey: other)
        }
        let reader = RemoteCache(store: store, signingKey: key)
        for name in ["b", "c", "d"] { #expect(await read(reader, name) == nil, "\(name)") }
        #expect(await read(reader, "a") == payload)
        #expect(
            reader.warnings == [
                "remote cache memory: 3 objects were not signed with this site's key "
                    + "(GALLERYGEN_REMOTE_CACHE_KEY); ignored and replaced (e.g. v1/urls/b)"
            ], "\(reader.warnings)")

        // Without a key every well-formed object is taken: the trust the docs describe.
        let trusting = RemoteCache(store: store)
        for name in ["a", "b", "c", "d"] { #expect(await read(trusting, name) == payload, "\(name)") }
    }

    @Test func aKeyIsTakenFromTheEnvironmentOnlyWhenSet() {
        #expect(SigningKey(environment: [:]) == nil)
        #expect(SigningKey(environment: [SigningKey.variable: "  "]) == nil)
        #expect(SigningKey(environment: [SigningKey.variable: "k"]) == SigningKey(secret: "k"))
        let key = SigningKey(secret: "k")
        #expect(key?.mac(["a", "bc"]) != key?.mac(["ab", "c"]), "parts are told apart")
        #expect(key?.verify(key?.mac(["x"]) ?? "", ["x"]) == true)
    }

    /// Eight objects of 1 MB, read at once through a budget of 2.5 MB (each read holds twice its
    /// size while it is copied): never more than one is held at a time.
    @Test func objectsAreHeldWithinTheMemoryBudget() async throws {
        let object = Envelope.seal(Data(repeating: 7, count: 1 << 20), kind: "urls", key: "", signingKey: nil)
        let server = try await TestHTTPServer { _ in TestHTTPServer.Response(body: Array(object)) }
        let store = HTTPRemoteStore(base: try #require(URL(string: server.baseURL + "/")), token: nil, client: .shared)
        let cache = RemoteCache(store: store, concurrency: 8, memoryBudget: 5 << 19)
        let held = Held()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = await cache.read(.url, "object-\(index)") { data -> Int? in
                        held.counts.withLock {
                            $0.now += 1
                            $0.peak = max($0.peak, $0.now)
                        }
                        Thread.sleep(forTimeInterval: 0.03)
                        held.counts.withLock { $0.now -= 1 }
                        return data.count
                    }
                }
            }
        }
        #expect(server.requests.count == 8)
        #expect(held.counts.withLock { $0.peak } == 1)
        try await server.shutdown()
    }
}
