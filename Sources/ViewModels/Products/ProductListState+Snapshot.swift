import JSON
import Services

// The journal form of the product list: the public JSON of each item, the Loadable with its request.

extension Product {
    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            id: try reader.string("id"), title: try reader.string("title"), subtitle: try reader.string("subtitle"),
            price: try reader.string("price"), badge: try reader.string("badge"), detail: try reader.string("detail"),
            imageUrl: try reader.optionalString("imageUrl")
        )
    }
}

extension PageRequest {
    func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("page")
        switch self {
        case .refresh:
            json.int(1)
            json.key("refresh")
            json.bool(true)
        case .nextPage(let page):
            json.int(page)
            json.key("refresh")
            json.bool(false)
        }
        json.closeObject()
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self = try reader.bool("refresh") ? .refresh : .nextPage(try reader.int("page"))
    }
}

extension ProductListState {
    func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("list")
        list.writeSnapshot(
            to: &json,
            value: { list, json in
                json.openObject()
                json.key("items")
                json.openArray()
                for item in list.items { json.value(item.json) }
                json.closeArray()
                json.key("page")
                json.int(list.page)
                json.key("hasMore")
                json.bool(list.hasMore)
                json.closeObject()
            },
            request: { $0.writeSnapshot(to: &$1) }
        )
        json.key("lastError")
        if let lastError { json.value(lastError.json) } else { json.null() }
        json.closeObject()
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            list: try Loadable(
                snapshot: reader.object("list"),
                value: { (r) throws(SnapshotError) in
                    ProductList(
                        items: try r.array("items") { (item) throws(SnapshotError) in try Product(snapshot: item) },
                        page: try r.int("page"), hasMore: try r.bool("hasMore")
                    )
                },
                request: { (r) throws(SnapshotError) in try PageRequest(snapshot: r) }
            ),
            lastError: try reader.optionalError("lastError")
        )
    }
}

// The journal's extras of the product list (the status, failure and request of its load, and whether it has a
// list at all: the JSON shows an empty one for none) and the snapshot rebuilt from the JSON and the extras.

extension ProductListState {
    /// The extras of the list's load.
    func writeListExtras(to json: inout JSONTextWriter) {
        list.writeExtras(to: &json) { $0.writeSnapshot(to: &$1) }
    }

    /// The snapshot form (``writeSnapshot(to:)``'s JSON) of the state whose API JSON is `json`, with the list's
    /// extras `listExtras`.
    static func snapshot(json: SnapshotReader, listExtras: JSONValue) throws(SnapshotError) -> JSONValue {
        let value: JSONValue = [
            "items": json.value("items"), "page": json.value("page"), "hasMore": json.value("hasMore"),
        ]
        return [
            "list": try Loadable<ProductList, PageRequest>.snapshot(extras: listExtras, value: value),
            "lastError": json.value("lastError"),
        ]
    }
}
