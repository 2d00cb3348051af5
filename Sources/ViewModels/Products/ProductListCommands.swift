import EventLoop
import JSON

extension ProductListViewModel: HostedViewModel {
    public nonisolated static let name = "products"

    /// `POST /v1/sessions/{id}/products/{command}`; none reads its body.
    public nonisolated static let commands: [ViewModelCommand<ProductListViewModel>] = [
        ViewModelCommand("refresh") { products throws(CommandRejection) in
            try UpstreamBudget.check(products.upstreamBudget)
            products.refresh()
            products.upstreamBudget?.take()
            return .accepted { [weak products] in await products?.waitUntilIdle() }
        },
        ViewModelCommand("load-more") { products throws(CommandRejection) in
            try UpstreamBudget.check(products.upstreamBudget)
            do throws(CommandDisabled) {
                try products.loadMore()
            } catch {
                throw .disabled(error)
            }
            products.upstreamBudget?.take()
            return .accepted { [weak products] in await products?.waitUntilIdle() }
        },
        ViewModelCommand("cancel") { products in
            products.cancel()
            return .state
        },
    ]
}
