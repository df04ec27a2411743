/// FNV-1a (64 bits) of `text`'s UTF-8: a short name for a long text, the same on every machine
/// and every run (page slugs, temporary names), not a defence against anyone.
package func fnv1a64(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
}
