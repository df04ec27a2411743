import Foundation

/// A zip of files stored as they are (photos do not compress), whose bytes depend only on the
/// entries' names and contents: every timestamp is the format's first day (1980-01-01), the
/// entries are in the order given, and nothing of the machine (owner, time, path) goes in. Two
/// builds of the same album write the same archive, byte for byte.
///
/// Its size is known before it is written (``byteCount``): a build finds an album's zip in
/// place by its name and size without reading it. Entries or offsets past 4 GiB use Zip64.
struct ZipArchive {
    struct Entry: Sendable, Hashable {
        /// The path inside the archive, `/` between folders (``entryName(_:)`` makes a safe one).
        var name: String
        var file: URL
        var byteCount: Int64
    }

    let entries: [Entry]
    /// Sizes and offsets from this value on are written as Zip64's (the format's own limit;
    /// tests lower it to check that path on small files).
    var zip64Threshold: Int64 = 0xFFFF_FFFF

    init(entries: [Entry], zip64Threshold: Int64 = 0xFFFF_FFFF) {
        self.entries = entries
        self.zip64Threshold = zip64Threshold
    }

    private struct Placed {
        var entry: Entry
        var name: [UInt8]
        var offset: Int64
        var sizesInZip64: Bool
        var offsetInZip64: Bool
    }

    private func layout() -> (placed: [Placed], directoryOffset: Int64, directorySize: Int64) {
        var offset: Int64 = 0
        var placed: [Placed] = []
        placed.reserveCapacity(entries.count)
        for entry in entries {
            let name = Array(entry.name.utf8)
            let item = Placed(
                entry: entry, name: name, offset: offset, sizesInZip64: entry.byteCount >= zip64Threshold,
                offsetInZip64: offset >= zip64Threshold)
            placed.append(item)
            offset += 30 + Int64(name.count) + (item.sizesInZip64 ? 20 : 0) + entry.byteCount
        }
        var directorySize: Int64 = 0
        for item in placed {
            directorySize += 46 + Int64(item.name.count) + Int64(Self.centralExtra(item).count)
        }
        return (placed, offset, directorySize)
    }

    private var endNeedsZip64: Bool {
        let (_, offset, size) = layout()
        return entries.count >= 0xFFFF || offset >= zip64Threshold || size >= zip64Threshold
    }

    /// The archive's size in bytes.
    var byteCount: Int64 {
        let (_, offset, size) = layout()
        return offset + size + (endNeedsZip64 ? 56 + 20 : 0) + 22
    }

    /// Writes the archive to `url` (a new file). Each entry is read twice: once for its CRC-32,
    /// which goes before its bytes, then copied. Throws when an entry's file is not the size it
    /// was said to be.
    func write(to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let output = try FileHandle(forWritingTo: url)
        defer { try? output.close() }
        let (placed, directoryOffset, directorySize) = layout()
        var crcs: [UInt32] = []
        for item in placed {
            let crc = try Self.crc32(of: item.entry)
            crcs.append(crc)
            var header = ByteWriter()
            header.u32(0x0403_4b50)
            header.u16(item.sizesInZip64 ? 45 : 20)
            header.u16(0x0800)  // names are UTF-8
            header.u16(0)  // stored
            header.u16(0)  // 00:00
            header.u16(Self.firstDay)
            header.u32(crc)
            header.u32(item.sizesInZip64 ? 0xFFFF_FFFF : UInt32(item.entry.byteCount))
            header.u32(item.sizesInZip64 ? 0xFFFF_FFFF : UInt32(item.entry.byteCount))
            header.u16(UInt16(item.name.count))
            header.u16(item.sizesInZip64 ? 20 : 0)
            header.bytes(item.name)
            if item.sizesInZip64 {
                header.u16(0x0001)
                header.u16(16)
                header.u64(UInt64(item.entry.byteCount))
                header.u64(UInt64(item.entry.byteCount))
            }
            try output.write(contentsOf: header.data)
            try Self.copy(item.entry, to: output)
        }
        var directory = ByteWriter()
        for (item, crc) in zip(placed, crcs) {
            let extra = Self.centralExtra(item)
            let zip64 = item.sizesInZip64 || item.offsetInZip64
            directory.u32(0x0201_4b50)
            directory.u16(3 << 8 | (zip64 ? 45 : 20))  // made on Unix
            directory.u16(zip64 ? 45 : 20)
            directory.u16(0x0800)
            directory.u16(0)
            directory.u16(0)
            directory.u16(Self.firstDay)
            directory.u32(crc)
            directory.u32(item.sizesInZip64 ? 0xFFFF_FFFF : UInt32(item.entry.byteCount))
            directory.u32(item.sizesInZip64 ? 0xFFFF_FFFF : UInt32(item.entry.byteCount))
            directory.u16(UInt16(item.name.count))
            directory.u16(UInt16(extra.count))
            directory.u16(0)  // comment
            directory.u16(0)  // disk
            directory.u16(0)  // internal attributes
            directory.u32(0o100644 << 16)  // a plain file, rw-r--r--
            directory.u32(item.offsetInZip64 ? 0xFFFF_FFFF : UInt32(item.offset))
            directory.bytes(item.name)
            directory.bytes(extra)
        }
        let count = entries.count
        if endNeedsZip64 {
            let record = directoryOffset + directorySize
            directory.u32(0x0606_4b50)
            directory.u64(44)
            directory.u16(45)
            directory.u16(45)
            directory.u32(0)
            directory.u32(0)
            directory.u64(UInt64(count))
            directory.u64(UInt64(count))
            directory.u64(UInt64(directorySize))
            directory.u64(UInt64(directoryOffset))
            directory.u32(0x0706_4b50)
            directory.u32(0)
            directory.u64(UInt64(record))
            directory.u32(1)
        }
        let zip64 = endNeedsZip64
        directory.u32(0x0605_4b50)
        directory.u16(0)
        directory.u16(0)
        directory.u16(zip64 && count >= 0xFFFF ? 0xFFFF : UInt16(count))
        directory.u16(zip64 && count >= 0xFFFF ? 0xFFFF : UInt16(count))
        directory.u32(zip64 ? 0xFFFF_FFFF : UInt32(directorySize))
        directory.u32(zip64 ? 0xFFFF_FFFF : UInt32(directoryOffset))
        directory.u16(0)
        try output.write(contentsOf: directory.data)
        try output.synchronize()
    }

    /// 1980-01-01 in MS-DOS's date format (the format's first day).
    private static let firstDay: UInt16 = (0 << 9) | (1 << 5) | 1

    private static func centralExtra(_ item: Placed) -> [UInt8] {
        guard item.sizesInZip64 || item.offsetInZip64 else { return [] }
        var extra = ByteWriter()
        extra.u16(0x0001)
        extra.u16(UInt16((item.sizesInZip64 ? 16 : 0) + (item.offsetInZip64 ? 8 : 0)))
        if item.sizesInZip64 {
            extra.u64(UInt64(item.entry.byteCount))
            extra.u64(UInt64(item.entry.byteCount))
        }
        if item.offsetInZip64 { extra.u64(UInt64(item.offset)) }
        return extra.data
    }

    private static let block = 1 << 20

    private static func crc32(of entry: Entry) throws -> UInt32 {
        let input = try FileHandle(forReadingFrom: entry.file)
        defer { try? input.close() }
        var crc = CRC32()
        var total: Int64 = 0
        while let data = try input.read(upToCount: block), !data.isEmpty {
            crc.update(data)
            total += Int64(data.count)
        }
        guard total == entry.byteCount else { throw changed(entry) }
        return crc.value
    }

    private static func copy(_ entry: Entry, to output: FileHandle) throws {
        let input = try FileHandle(forReadingFrom: entry.file)
        defer { try? input.close() }
        var total: Int64 = 0
        while let data = try input.read(upToCount: block), !data.isEmpty {
            total += Int64(data.count)
            guard total <= entry.byteCount else { throw changed(entry) }
            try output.write(contentsOf: data)
        }
        guard total == entry.byteCount else { throw changed(entry) }
    }

    private static func changed(_ entry: Entry) -> CocoaError {
        CocoaError(
            .fileReadCorruptFile,
            userInfo: [NSFilePathErrorKey: entry.file.path, NSLocalizedDescriptionKey: "it changed size while zipped"])
    }

    /// A name for an entry that every unzip tool puts inside the folder it unpacks to: no
    /// leading `/`, no `..`, no `\` or `:`, no control characters, no trailing dot or space
    /// (Windows drops them); empty parts dropped; each part at most 200 bytes (file systems take
    /// 255) and the whole at most 1,024, the outermost folders dropped first.
    static func entryName(_ parts: [String]) -> String {
        let cleaned = parts.map { part -> String in
            var name = String(
                part.unicodeScalars.map { scalar -> Character in
                    if scalar.value < 0x20 || scalar.value == 0x7F || "/\\:*?\"<>|".unicodeScalars.contains(scalar) {
                        return "-"
                    }
                    return Character(scalar)
                })
            while name.hasPrefix(".") { name.removeFirst() }
            name = name.trimmingCharacters(in: .whitespaces)
            var kept = capped(name, bytes: 200)
            while let last = kept.last, last == "." || last == " " { kept.removeLast() }
            return kept
        }
        var names = cleaned.filter { !$0.isEmpty }
        while names.count > 1, names.joined(separator: "/").utf8.count > 1024 { names.removeFirst() }
        return names.joined(separator: "/")
    }
}

extension ZipArchive {
    /// `text`'s first whole characters that fit in `bytes` bytes of UTF-8.
    static func capped(_ text: String, bytes limit: Int) -> String {
        var kept = ""
        var bytes = 0
        for character in text {
            bytes += character.utf8.count
            guard bytes <= limit else { break }
            kept.append(character)
        }
        return kept
    }
}

/// Little-endian integers and bytes, as the zip format lays them out.
private struct ByteWriter {
    var data: [UInt8] = []

    mutating func u16(_ value: UInt16) {
        data.append(UInt8(value & 0xFF))
        data.append(UInt8(value >> 8))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { data.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }

    mutating func bytes(_ bytes: [UInt8]) {
        data += bytes
    }
}

/// CRC-32 as zip (and PNG, and gzip) computes it: reflected polynomial 0xEDB88320, eight bytes
/// a step (slicing by 8).
struct CRC32 {
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            tables[0][index] = crc
        }
        for index in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[slice - 1][index]
                tables[slice][index] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    private var crc: UInt32 = 0xFFFF_FFFF

    var value: UInt32 { crc ^ 0xFFFF_FFFF }

    mutating func update(_ data: some DataProtocol) {
        let tables = Self.tables
        var crc = self.crc
        for region in data.regions {
            region.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                var index = 0
                let count = bytes.count
                tables.withUnsafeBufferPointer { t in
                    let t0 = t[0]
                    let t1 = t[1]
                    let t2 = t[2]
                    let t3 = t[3]
                    let t4 = t[4]
                    let t5 = t[5]
                    let t6 = t[6]
                    let t7 = t[7]
                    while index + 8 <= count {
                        let low =
                            crc
                            ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16
                                | UInt32(bytes[index + 3]) << 24)
                        crc =
                            t7[Int(low & 0xFF)] ^ t6[Int((low >> 8) & 0xFF)] ^ t5[Int((low >> 16) & 0xFF)]
                            ^ t4[Int(low >> 24)] ^ t3[Int(bytes[index + 4])] ^ t2[Int(bytes[index + 5])]
                            ^ t1[Int(bytes[index + 6])] ^ t0[Int(bytes[index + 7])]
                        index += 8
                    }
                    while index < count {
                        crc = (crc >> 8) ^ t0[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                        index += 1
                    }
                }
            }
        }
        self.crc = crc
    }
}
