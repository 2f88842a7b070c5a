// HubProtocol: what Burrow relies on from the Hugging Face hub, in one place,
// as pure functions (no network here; HubClient lists, DownloadWorker
// downloads). The hub is the only host the app ever contacts, and only when
// the user asks for a list or a download.
//
// Facts relied on (from the hub's public client, huggingface_hub:
// hf_api.py list_repo_tree / RepoFile, file_download.py, utils/_http.py
// hf_raise_for_status, utils/_pagination.py, constants.py):
//
// - Base URL: https://huggingface.co, replaceable (huggingface_hub reads
//   HF_ENDPOINT; Burrow reads BURROW_HF_ENDPOINT first, then HF_ENDPOINT, so
//   mirrors work and tests point it at a server on loopback).
// - File list: GET {base}/api/models/{repo}/tree/{revision}?recursive=true
//   answers a JSON array of entries {"type": "file" | "directory", "path",
//   "size", "oid" (the git blob id, 40 hex), "lfs": {"oid" (SHA-256 of the
//   content, 64 hex), "size", "pointerSize"} for files kept in LFS}. Long
//   lists are paginated with a GitHub-style `Link: <url>; rel="next"` header.
//   The revision is percent-encoded whole ("refs/pr/1" -> "refs%2Fpr%2F1").
// - A file: GET {base}/{repo}/resolve/{revision}/{path}. For an LFS file the
//   hub answers a redirect (302) to a CDN host on another origin; that
//   redirect carries X-Linked-Etag (the quoted SHA-256 of the content),
//   X-Linked-Size (its size) and X-Repo-Commit (the commit the revision
//   points to). A small non-LFS file is answered directly (200) with ETag =
//   the quoted git blob id. The CDN honours Range (206 + Content-Range) and
//   If-Range with its own ETag. Relative redirects also occur on the hub
//   itself (a renamed repository).
// - Errors: the status plus X-Error-Code ("RepoNotFound", "RevisionNotFound",
//   "EntryNotFound", "GatedRepo") and X-Error-Message. A 401 without a token
//   means "not found, or private or gated" (the hub does not tell them
//   apart); "Invalid credentials in Authorization header" means the token
//   was refused.
// - The token goes as `Authorization: Bearer <token>`, to the hub's own
//   origin only: never to the CDN a redirect leads to.
#pragma once

#include <QCoreApplication>
#include <QNetworkReply>
#include <QString>
#include <QUrl>

// What the user pasted, understood: a repository id ("org/repo"), the
// revision (default "main") and, for a link to one file, that file's path in
// the repository. `error` is a sentence when the text is none of these.
struct HubReference {
    QString repo;
    QString revision;
    QString file;
    QString error;
    bool isValid() const { return error.isEmpty() && !repo.isEmpty(); }
};

// One GGUF file of a repository's listing.
struct HubFile {
    QString path;          // in the repository ("Q4_K_M/model-Q4_K_M.gguf")
    qint64 size = -1;      // bytes (the LFS size for LFS files)
    QString checksum;      // lower-case hex: 64 = SHA-256 (LFS), 40 = git blob id, "" none
    int parts = 1;         // a split model (-00001-of-00003.gguf): how many files
};

class HubProtocol {
    Q_DECLARE_TR_FUNCTIONS(HubProtocol)

public:
    static constexpr const char *DefaultEndpoint = "https://huggingface.co";
    // Bounds on what the hub may send: a listing page, pages followed, files
    // listed, redirects followed for one download.
    static constexpr qint64 MaxListingBytes = 32LL * 1024 * 1024;
    static constexpr int MaxListingPages = 50;
    static constexpr int MaxListedFiles = 20000;
    static constexpr int MaxRedirects = 10;

    // The hub's base URL without a trailing slash: BURROW_HF_ENDPOINT, else
    // HF_ENDPOINT, else DefaultEndpoint. A value that is not an http(s) URL
    // without query or fragment is ignored (DefaultEndpoint then).
    static QUrl endpoint();

    // Understands "org/repo", https://huggingface.co/org/repo,
    // .../tree/<rev>, .../blob/<rev>/<path>, .../resolve/<rev>/<path> (also
    // hf.co and the configured endpoint's host; a query is ignored).
    static HubReference parseReference(const QString &text);
    static bool isValidRepoId(const QString &repo);
    static bool isValidRevision(const QString &revision);
    // A path inside a repository: '/'-separated, no empty, "." or ".."
    // part, no control characters, at most 1024 characters.
    static bool isValidRepoPath(const QString &path);

    static QUrl treeUrl(const QUrl &endpoint, const QString &repo, const QString &revision);
    static QUrl resolveUrl(const QUrl &endpoint, const QString &repo, const QString &revision, const QString &path);
    // The repository's page, for the user to read a licence.
    static QUrl pageUrl(const QUrl &endpoint, const QString &repo);

    // Same scheme, host and port (the default one when absent).
    static bool sameOrigin(const QUrl &a, const QUrl &b);
    // The URL of rel="next" in a Link header, or an empty URL.
    static QUrl nextPageUrl(const QByteArray &linkHeader, const QUrl &base);
    // An ETag without W/ and quotes, lower-case.
    static QString normalizeEtag(const QByteArray &etag);
    static bool isHex(const QString &text, int length);

    // The name a downloaded file gets in the models folder: the last part
    // of the repository path. "" when it is no safe name (empty, ".", "..",
    // hidden, a separator or control character, longer than 200 bytes,
    // not ending in .gguf).
    static QString localFileName(const QString &repoPath);
    // "Q4_K_M", "IQ2_XXS", "F16", "BF16", ... read from a file name, or "".
    static QString quantization(const QString &fileName);
    // A few words on what a quantization means for a user ("4-bit: a good
    // balance of size and quality"), or "" when unknown.
    static QString quantizationHint(const QString &quantization);
    // Split GGUF files: "model-00001-of-00003.gguf" -> part 1 of 3 and the
    // name without the part ("model.gguf"); false for other names.
    static bool splitPart(const QString &fileName, int *part, int *count, QString *base);

    // A sentence for an HTTP error of the hub. `hasToken`: a token was sent.
    // `file` is "" for a listing.
    static QString httpErrorText(int status, const QByteArray &errorCode, const QByteArray &errorMessage,
                                 bool hasToken, const QString &repo, const QString &revision, const QString &file);
    // A sentence for a failure below HTTP (offline, refused, timed out, TLS).
    static QString networkErrorText(QNetworkReply::NetworkError error, const QString &host, const QString &detail);
};
