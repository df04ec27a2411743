import Foundation

/// Which process listens where: a server started on a port found free must be told from another
/// test's server that took the port first.
public enum TestSockets {
    /// Whether process `pid` holds a TCP socket listening on `port` (on Linux, from /proc: the
    /// listening sockets of that port in /proc/net/tcp and tcp6, against the sockets among the
    /// process's open files). Elsewhere it cannot tell, and says yes.
    public static func listens(process pid: Int32, port: Int) -> Bool {
        #if os(Linux)
            let files = FileManager.default
            let descriptors = (try? files.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let sockets = Set(
                descriptors.compactMap { descriptor -> Substring? in
                    guard let target = try? files.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                        target.hasPrefix("socket:[")
                    else { return nil }
                    return Substring(target.dropFirst("socket:[".count).dropLast())
                })
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                let text = (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
                // `sl local_address rem_address st ... inode`: the local port is hex after the
                // colon, and state 0A is LISTEN.
                for line in text.split(separator: "\n").dropFirst() {
                    let fields = line.split(separator: " ")
                    guard fields.count > 9, fields[3] == "0A", let colon = fields[1].lastIndex(of: ":"),
                        Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port
                    else { continue }
                    if sockets.contains(fields[9]) { return true }
                }
            }
            return false
        #else
            return true
        #endif
    }
}
