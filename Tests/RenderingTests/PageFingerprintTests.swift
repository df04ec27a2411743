import Foundation
import Testing

@testable import Rendering

@Suite struct PageFingerprintTests {
    func fingerprint(_ model: some Encodable, path: String = "index.html") -> PageFingerprint {
        PageFingerprint.of(model, path: path, salt: Array("salt".utf8))
    }

    func navigation(previous: String?, next: String?, links: [Int?] = [1, 2]) -> PageViewModel.Navigation {
        PageViewModel.Navigation(
            number: 1, count: 2,
            links: links.map { PageViewModel.Navigation.Link(number: $0, href: $0.map { "page-\($0).html" }) },
            previous: previous, next: next)
    }

    @Test func everyStoredValueCountsAndWhereItStands() {
        let base = fingerprint(navigation(previous: nil, next: "page-2.html"))
        #expect(base == fingerprint(navigation(previous: nil, next: "page-2.html")), "the same values, the same print")
        // The same string in another field, a gap instead of a link, one link fewer: all differ.
        let others = [
            fingerprint(navigation(previous: "page-2.html", next: nil)),
            fingerprint(navigation(previous: nil, next: "page-2.html", links: [1, nil])),
            fingerprint(navigation(previous: nil, next: "page-2.html", links: [1])),
            fingerprint(navigation(previous: nil, next: "page-2.html"), path: "page-2.html"),
            PageFingerprint.of(navigation(previous: nil, next: "page-2.html"), path: "index.html", salt: []),
        ]
        #expect(Set(others + [base]).count == others.count + 1)
    }

    @Test func stringsAreDelimitedByTheirLength() {
        let a = PhotoPageViewModel.Link(href: "ab", title: "c")
        let b = PhotoPageViewModel.Link(href: "a", title: "bc")
        #expect(fingerprint(a) != fingerprint(b))
    }

    @Test func aTilesOwnMarkupIsNotPartOfIt() {
        var tile = PhotoViewModel(for: SiteRendererTests.item(0), slug: "p", eager: true, grid: .justified)
        let before = fingerprint(tile)
        tile.html = "<li>rendered</li>"
        #expect(fingerprint(tile) == before, "the markup is made from the values, which count already")
        tile.alt = "another"
        #expect(fingerprint(tile) != before)
    }

    @Test func theHexFormReadsBack() {
        let print = fingerprint(navigation(previous: nil, next: nil))
        let hex = Array(print.description.utf8)
        #expect(hex.count == 64)
        hex.withUnsafeBufferPointer { buffer in
            #expect(PageFingerprint(hex: buffer[...]) == print)
            #expect(PageFingerprint(hex: buffer[1...]) == nil)
        }
        let upper = Array(print.description.uppercased().utf8)
        upper.withUnsafeBufferPointer { buffer in
            #expect(print.description.contains(where: \.isLetter) == (PageFingerprint(hex: buffer[...]) == nil))
        }
    }

    @Test func theSourcesCoverEveryItemAndEverySetting() async throws {
        let gallery = Gallery(
            title: "G", introHTML: "", baseURL: nil, items: (0..<3).map { SiteRendererTests.item($0) })
        let renderer = try await SiteRendererTests().renderer()
        let base = await renderer.sourcesFingerprint(of: gallery)
        #expect(await renderer.sourcesFingerprint(of: gallery) == base)
        var rendition = gallery
        rendition.items[1].image?.renditions[0].byteCount += 1
        var intro = gallery
        intro.introHTML = "<p>Hello</p>"
        var failure = gallery
        failure.items[2].failure = "HTTP 404"
        var order = gallery
        order.items.swapAt(0, 1)
        let others = [
            await renderer.sourcesFingerprint(of: rendition), await renderer.sourcesFingerprint(of: intro),
            await renderer.sourcesFingerprint(of: failure), await renderer.sourcesFingerprint(of: order),
            try await SiteRendererTests().renderer(pageSize: 2).sourcesFingerprint(of: gallery),
        ]
        #expect(Set(others + [base]).count == others.count + 1)
    }
}
