import Foundation
import GalleryCore
import Testing

@testable import Loading

/// Where a feed's secret goes and where it is taken out.
@Suite struct RequestCredentialsTests {
    let feed = URL(string: "https://photos.example.com/api/feed")!

    @Test func aQuerySecretJoinsTheQueryAsWrittenOnTheFeedsOriginOnly() throws {
        let credentials = try #require(RequestCredentials(kind: .query("key"), secret: "s3cr3t+/=x", for: feed))
        let sent = credentials.request(for: URL(string: "https://photos.example.com/api/feed?tags=red+car&key=old")!)
        #expect(sent.url == "https://photos.example.com/api/feed?tags=red+car&key=s3cr3t%2B%2F%3Dx")
        #expect(sent.headers.isEmpty)
        let elsewhere = credentials.request(for: URL(string: "https://cdn.example.com/a.jpg?x=1")!)
        #expect(elsewhere.url == "https://cdn.example.com/a.jpg?x=1" && elsewhere.headers.isEmpty)
        // Another port is another origin.
        #expect(!credentials.applies(to: URL(string: "https://photos.example.com:8443/a.jpg")!))
    }

    @Test func whatIsKeptHoldsTheSecretInNoForm() throws {
        let secret = "s3cr3t-T0ken+/="
        let credentials = try #require(RequestCredentials(kind: .bearer, secret: secret, for: feed))
        // A server echoing it in a URL, encoded as encodeURIComponent does: the pair goes, the
        // rest stays as written.
        let echoed = URL(string: "https://photos.example.com/a.jpg?size=l+xl&token=s3cr3t-T0ken%2B%2F%3D")!
        #expect(credentials.stripped(echoed).absoluteString == "https://photos.example.com/a.jpg?size=l+xl")
        let link = "<https://photos.example.com/api/feed?page=2&token=s3cr3t-T0ken%2b%2f%3d>; rel=\"next\""
        #expect(credentials.redacting(link) == "<https://photos.example.com/api/feed?page=2>; rel=\"next\"")
        for body in [secret, "s3cr3t-T0ken%2B%2F%3D", "s3cr3t-T0ken%2b%2f%3d", "s3cr3t-T0ken+\\/="] {
            #expect(credentials.isIn(Data("{\"next\": \"\(body)\"}".utf8)), "\(body)")
        }
        #expect(!credentials.isIn(Data("{\"next\": \"s3cr3t\"}".utf8)))
    }

    @Test func aShortSecretIsNotSearchedForInWhatServersAnswer() throws {
        let credentials = try #require(RequestCredentials(kind: .query("key"), secret: "1", for: feed))
        let url = URL(string: "https://photos.example.com/api/feed?page=1&key=1")!
        #expect(credentials.stripped(url).absoluteString == "https://photos.example.com/api/feed?page=1")
        #expect(credentials.redacting("<https://photos.example.com/api/feed?page=1>; rel=next").contains("page=1"))
        #expect(!credentials.isIn(Data("page 1 of 10".utf8)))
    }

    @Test func basicSendsTheTokenAndFindsItEchoed() throws {
        let credentials = try #require(RequestCredentials(kind: .basic(user: "ana"), secret: "pa ss+wörd", for: feed))
        let token = Data("ana:pa ss+wörd".utf8).base64EncodedString()
        #expect(credentials.request(for: feed).headers.first?.1 == "Basic \(token)")
        #expect(credentials.isIn(Data("Authorization: Basic \(token)".utf8)))
    }
}
