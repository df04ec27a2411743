#if canImport(Glibc)
    import Foundation
    import Glibc

    /// glibc's allocator gives threads arenas of their own, up to eight per core. A build's
    /// threads (the task pool, the HTTP client's event loops, libvips' workers) fill them with the
    /// garbage of loading and encoding, interleaved with the records that live to the build's end,
    /// and an arena gives back no page that one live record still holds. Two per core keep the
    /// records in fewer pages: the 100,000-photo cold build's peak fell from 416 to 339-402 MiB,
    /// the 10,000-photo one's from 161 to 131-133, with no cost in time that stands out of the
    /// runs' noise (BENCHMARKS.md). One per core slowed cold builds by about a tenth in every run.
    /// An arena limit in the environment (`MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in
    /// `GLIBC_TUNABLES`) wins.
    enum MallocArenas {
        static func limit() {
            let tunables = getenv("GLIBC_TUNABLES").map { String(cString: $0) } ?? ""
            guard getenv("MALLOC_ARENA_MAX") == nil, !tunables.contains("glibc.malloc.arena_max"),
                // mallopt(3) is declared in <malloc.h>, which the Glibc module does not include.
                let symbol = dlsym(nil, "mallopt")
            else { return }
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            let arenaMax: Int32 = -8  // M_ARENA_MAX in <malloc.h>
            _ = mallopt(arenaMax, Int32(2 * max(1, ProcessInfo.processInfo.activeProcessorCount)))
        }
    }
#endif
