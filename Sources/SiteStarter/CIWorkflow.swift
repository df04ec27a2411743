import Foundation
import GalleryCore

/// The CI files `gallerygen init --ci` writes; examples/ci/ holds the same files for a site at the
/// repository's root (a test keeps the two equal).
package enum CIWorkflow: String, Sendable, CaseIterable {
    case github
    case gitlab

    /// The repository that publishes gallerygen's releases and its GitHub Action.
    package static let repository = "gallerygen/gallerygen"
    /// The release the files name.
    package static let version = GalleryVersion.current

    /// Where the file goes, relative to the repository's root.
    package var path: String {
        switch self {
        case .github: ".github/workflows/gallery.yml"
        case .gitlab: ".gitlab-ci.yml"
        }
    }

    /// The file for a site in `site` (relative to the repository's root, `.` for the root itself)
    /// writing its pages to `output` (relative to the site).
    package func text(site: String, output: String) -> String {
        let published = Self.quoted(site == "." ? output : "\(site)/\(output)")
        switch self {
        case .github:
            return """
                # Builds the gallery with gallerygen and publishes it on GitHub Pages: on every push to main,
                # every morning (to pick up what changed in the feed), and by hand. Turn Pages on first:
                # Settings > Pages > Source: GitHub Actions.
                name: Publish the gallery

                on:
                  push:
                    branches: [main]
                  schedule:
                    - cron: "17 5 * * *"
                  workflow_dispatch:

                permissions:
                  contents: read
                  pages: write
                  id-token: write

                # One publication at a time; a newer run waits for the one under way.
                concurrency:
                  group: pages
                  cancel-in-progress: false

                jobs:
                  build:
                    runs-on: ubuntu-24.04
                    steps:
                      - uses: actions/checkout@v4
                      # Downloads the release, keeps the cache between runs, writes a summary of the build.
                      # To start a runner warm from the live site, add: args: --seed https://you.github.io/repo/
                      - uses: \(Self.repository)@v\(Self.version)
                        with:
                          site: \(Self.quoted(site))
                        # With seed: or remote_cache: in gallery.yml, store a long random string
                        # (openssl rand -hex 32) as this secret: what the builds publish and share is
                        # signed with it, and a build takes only what it signed.
                        env:
                          GALLERYGEN_REMOTE_CACHE_KEY: ${{ secrets.GALLERYGEN_REMOTE_CACHE_KEY }}
                      - uses: actions/upload-pages-artifact@v3
                        with:
                          path: \(published)

                  deploy:
                    needs: build
                    runs-on: ubuntu-24.04
                    environment:
                      name: github-pages
                      url: ${{ steps.deployment.outputs.page_url }}
                    steps:
                      - id: deployment
                        uses: actions/deploy-pages@v4

                """
        case .gitlab:
            // GitLab Pages publishes the folder `public` at the repository's root.
            return """
                # Builds the gallery with gallerygen and publishes it with GitLab Pages, on every push to the
                # default branch (add a pipeline schedule to pick up what changed in the feed). With seed: or
                # remote_cache: in gallery.yml, add GALLERYGEN_REMOTE_CACHE_KEY (a long random string,
                # openssl rand -hex 32) as a masked CI/CD variable: what the builds publish and share is
                # signed with it, and a build takes only what it signed.
                variables:
                  GALLERYGEN_VERSION: "\(Self.version)"
                  GALLERYGEN_URL: "https://github.com/\(Self.repository)/releases/download/v\(Self.version)/gallerygen-\(Self.version)-linux-x86_64.tar.gz"
                  SITE: \(Self.quoted(site.replacingOccurrences(of: "$", with: "$$")))

                pages:
                  image: debian:bookworm-slim
                  stage: deploy
                  rules:
                    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
                  # Downloads and thumbnails, kept between pipelines.
                  cache:
                    key: gallerygen-$GALLERYGEN_VERSION
                    paths:
                      - $SITE/.gallerygen-cache/
                  before_script:
                    - apt-get update -qq
                    - apt-get install -y -qq --no-install-recommends ca-certificates curl libvips42 libcmark-gfm0.29.0.gfm.6 libcmark-gfm-extensions0.29.0.gfm.6
                    - curl -fsSL --retry 3 -o /tmp/gallerygen.tar.gz "$GALLERYGEN_URL"
                    - curl -fsSL --retry 3 -o /tmp/gallerygen.tar.gz.sha256 "$GALLERYGEN_URL.sha256"
                    - echo "$(cut -d' ' -f1 /tmp/gallerygen.tar.gz.sha256)  /tmp/gallerygen.tar.gz" | sha256sum -c -
                    - mkdir -p /opt/gallerygen && tar -xzf /tmp/gallerygen.tar.gz -C /opt/gallerygen --strip-components=1
                  script:
                    - /opt/gallerygen/bin/gallerygen build "$SITE" --output "$CI_PROJECT_DIR/public" --report gallerygen-report.json
                  artifacts:
                    when: always
                    paths:
                      - public
                      - gallerygen-report.json

                """
        }
    }

    /// A YAML double-quoted scalar: any folder name stays one string.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
