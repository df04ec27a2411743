/// Why a build stopped: the CLI maps each kind to an exit code (shared/DESIGN.md).
public enum BuildError: Error, Sendable, CustomStringConvertible {
    /// `gallery.yml` or the command line is wrong: exit 2.
    case configuration(ConfigError)
    /// The build could not finish (unreadable feed, broken theme, unwritable output): exit 1.
    case failed(String)
    /// SIGINT or SIGTERM: exit 130.
    case interrupted

    public var description: String {
        switch self {
        case .configuration(let error): error.description
        case .failed(let message): message
        case .interrupted: "interrupted"
        }
    }
}
