import VMHostClient

/// What the terminal shows for a state: the text of the screen, nothing decided here that the server did not
/// decide. `vmhost-search` prints it when it changes.
enum SearchScreen {
    /// The search screen: searching…, the titles of the results (numbered, for `:open N`), or the error.
    static func render(_ state: SearchState) -> String {
        var lines: [String] = []
        if state.isSearching { lines.append("searching…") }
        if let error = state.lastError { lines.append("error: \(error.message)") }
        if let results = state.results.value, !state.isSearching {
            lines.append(
                "\(results.searchString): \(results.totalResults) photos, page \(results.page) of \(results.pages)")
            for (index, photo) in results.photos.enumerated() { lines.append("  \(index + 1). \(photo.title)") }
            if state.canLoadMore { lines.append("(+ for more)") }
        }
        return lines.joined(separator: "\n")
    }

    /// The photo screen: title, owner, comments.
    static func render(_ state: PhotoState) -> String {
        guard state.photoId != nil else { return "" }
        var lines: [String] = []
        switch state.detail.status {
        case .loading, .idle: lines.append("loading photo…")
        case .failed: lines.append("error: \(state.detail.error?.message ?? "the photo did not load")")
        case .loaded: break
        }
        if let detail = state.detail.value {
            lines.append("photo: \(detail.title)")
            lines.append("by: \(detail.owner)")
        }
        if let comments = state.comments.value {
            lines.append("comments: \(comments.count)")
            for comment in comments { lines.append("  \(comment.author): \(comment.text)") }
        }
        return lines.joined(separator: "\n")
    }
}
