import Foundation

/// Photos for an HTTP test: distinct small JPEGs, made once per process.
public enum TestPhotos {
    private static let cache = Locked<[Int: [UInt8]]>([:])

    /// The bytes of test photo `number` (each number a different picture).
    public static func jpeg(_ number: Int) -> [UInt8] {
        if let bytes = cache.value?[number] { return bytes }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gallerygen-photo-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        var image = TestImage(
            width: 96, height: 72, fill: TestImage.Color(UInt8(number * 37 % 256), UInt8(number * 91 % 256), 120))
        image.fillRect(x: number % 80, y: 8, width: 12, height: 12, color: .white)
        try? image.saveJPEG(to: file)
        let bytes = (try? [UInt8](Data(contentsOf: file))) ?? []
        var all = cache.value ?? [:]
        all[number] = bytes
        cache.set(all)
        return bytes
    }
}

extension TestHTTPServer.Response {
    /// A photo with an ETag and a Last-Modified, as a real photo host sends, and any extra headers.
    public static func photo(_ number: Int, etag: String? = nil, extraHeaders: [(String, String)] = []) -> Self {
        var headers = [("Content-Type", "image/jpeg"), ("Last-Modified", "Sat, 01 Nov 2025 10:00:00 GMT")]
        headers.append(("ETag", etag ?? "\"photo-\(number)\""))
        return Self(status: 200, headers: headers + extraHeaders, body: TestPhotos.jpeg(number))
    }

    /// 304 when the request carries the photo's validators, else the photo.
    public static func revalidating(_ request: TestHTTPServer.Request, photo number: Int, etag: String? = nil) -> Self {
        let tag = etag ?? "\"photo-\(number)\""
        if request.headers["if-none-match"] == tag { return Self(status: 304, headers: [("ETag", tag)]) }
        return .photo(number, etag: tag)
    }
}
