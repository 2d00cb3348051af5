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
    var snapshot: JSONValue {
        switch self {
        case .refresh: ["page": .int(1), "refresh": true]
        case .nextPage(let page): ["page": .int(page), "refresh": false]
        }
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self = try reader.bool("refresh") ? .refresh : .nextPage(try reader.int("page"))
    }
}

extension ProductListState {
    var snapshot: JSONValue {
        [
            "list": list.snapshot(
                value: { list in
                    ["items": .array(list.items.map(\.json)), "page": .int(list.page), "hasMore": .bool(list.hasMore)]
                },
                request: \.snapshot
            ),
            "lastError": lastError?.json ?? .null,
        ]
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
