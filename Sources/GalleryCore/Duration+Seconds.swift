extension Duration {
    /// The duration in seconds, as a report or a comparison with a figure in seconds needs it.
    package var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
