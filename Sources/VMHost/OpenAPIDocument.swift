import HTTPServer

/// The OpenAPI 3.1 document of the HTTP API (API.md), served at `GET /openapi.json`.
///
/// Kept by hand next to the routes: `Tests/VMHostTests/OpenAPIDocumentTests.swift` checks that it parses and
/// lists every route, and `scripts/api-test` validates it and runs schemathesis against a live server.
/// Long description lines are continued with `\#` so the source stays within 120 columns.
enum OpenAPIDocument {
    /// The document's bytes, converted once.
    static let bytes: [UInt8] = Array(json.utf8)

    /// Registers `GET /openapi.json` (`HEAD` too, through the router's fallback).
    static func register(on router: inout Router) {
        router.on(.get, "/openapi.json") { _ in
            .response(
                HTTPResponse(
                    status: 200,
                    headers: [
                        HTTPHeader("Content-Type", "application/json"),
                        HTTPHeader("Cache-Control", "public, max-age=300"),
                    ],
                    body: bytes
                )
            )
        }
    }

    /// The document as pretty-printed JSON.
    static let json: String = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "vmhost",
            "version": "1.0.0",
            "summary": "Server-held view models: commands in, state out as Server-Sent Events.",
            "description": "Each session owns view models on the server (a Flickr photo search, a paged product \#
        list). Clients send commands as `POST` requests and render the state they receive, as JSON or as an event \#
        stream of a snapshot and then RFC 6902 JSON Patches. Every state object carries `version`, which starts at 1 \#
        and strictly increases with every change of its view model.\n\nConventions: JSON bodies in and out (UTF-8). \#
        In request bodies unknown fields are ignored; a missing required field or a field of the wrong type is `400 \#
        invalid_field`. Every error answer is the `Error` object. A documented path requested with an undocumented \#
        method answers `405 method_not_allowed` with an `Allow` header; `HEAD` is allowed wherever `GET` is. An \#
        unknown path answers `404 not_found`. Every response carries `X-Request-ID`."
          },
          "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
          "tags": [
            {
              "name": "sessions",
              "description": "Create, read and end sessions."
            },
            {
              "name": "search",
              "description": "The Flickr photo search view model."
            },
            {
              "name": "products",
              "description": "The paged product list view model with pull-to-refresh."
            },
            {
              "name": "streams",
              "description": "State streams (Server-Sent Events)."
            },
            {
              "name": "operations",
              "description": "Health, metrics, this document and the web client."
            }
          ],
          "paths": {
            "/": {
              "get": {
                "operationId": "getWebClient",
                "tags": [
                  "operations"
                ],
                "summary": "The thin web client",
                "responses": {
                  "200": {
                    "description": "An HTML page that drives both view models through this API.",
                    "content": {
                      "text/html": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/healthz": {
              "get": {
                "operationId": "getHealth",
                "tags": [
                  "operations"
                ],
                "summary": "Liveness",
                "responses": {
                  "200": {
                    "description": "The server is up.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Health"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/metrics": {
              "get": {
                "operationId": "getMetrics",
                "tags": [
                  "operations"
                ],
                "summary": "Prometheus metrics",
                "responses": {
                  "200": {
                    "description": "Prometheus text exposition (`text/plain; version=0.0.4`): sessions, open streams, \#
        HTTP requests by route, method and status, upstream requests by service and outcome, with latency histograms.",
                    "content": {
                      "text/plain": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/openapi.json": {
              "get": {
                "operationId": "getOpenAPIDocument",
                "tags": [
                  "operations"
                ],
                "summary": "This document",
                "responses": {
                  "200": {
                    "description": "The OpenAPI 3.1 document of this API.",
                    "headers": {
                      "Cache-Control": {
                        "schema": {
                          "type": "string",
                          "const": "public, max-age=300"
                        }
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "type": "object"
                        }
                      }
                    }
                  }
                }
              }
            },
            "/v1/sessions": {
              "post": {
                "operationId": "createSession",
                "tags": [
                  "sessions"
                ],
                "summary": "Create a session",
                "description": "No body. The session expires after `idleTimeout` seconds without a request and \#
        without an open event stream.",
                "responses": {
                  "201": {
                    "description": "Created.",
                    "headers": {
                      "Location": {
                        "required": true,
                        "description": "`/v1/sessions/{id}`.",
                        "schema": {
                          "type": "string",
                          "pattern": "^/v1/sessions/[A-Za-z0-9_-]{22}$"
                        }
                      }
                    },
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/SessionCreated"
                        }
                      }
                    }
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "429": {
                    "$ref": "#/components/responses/TooManySessions"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "get": {
                "operationId": "getSession",
                "tags": [
                  "sessions"
                ],
                "summary": "A session with the state of every view model",
                "responses": {
                  "200": {
                    "description": "The session.",
                    "content": {
                      "application/json": {
                        "schema": {
                          "$ref": "#/components/schemas/Session"
                        }
                      }
                    }
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              },
              "delete": {
                "operationId": "deleteSession",
                "tags": [
                  "sessions"
                ],
                "summary": "End a session",
                "responses": {
                  "204": {
                    "description": "Deleted: all in-flight work is cancelled and its event streams end."
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/events": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "get": {
                "operationId": "streamSession",
                "tags": [
                  "streams"
                ],
                "summary": "Every view model of the session on one event stream",
                "description": "Server-Sent Events carrying both view models on one connection (browsers allow only 6 \#
        HTTP/1.1 connections per origin). Event names are `search.snapshot`, `search.patch`, `products.snapshot` and \#
        `products.patch`, with the data of the single-view-model streams. Every `id` is \#
        `search:{version},products:{version}`: the versions the client holds after that event. It starts with a \#
        snapshot of each view model; resuming from such an id replays each view model's missed patches, or sends its \#
        snapshot. `?format=snapshot` sends every change as a snapshot. The first bytes are sent at once: `retry: \#
        3000`, then the events. A comment line (`: keepalive`) is sent at least every 15 s. A client reading too \#
        slowly has its pending patches dropped and gets a fresh snapshot when it catches up (or is disconnected). \#
        Deleting or expiring the session ends the stream.",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Format"
                  },
                  {
                    "$ref": "#/components/parameters/SessionLastEventIDQuery"
                  },
                  {
                    "$ref": "#/components/parameters/LastEventIDHeader"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The event stream; it stays open until the client leaves, the session ends or the \#
        server shuts down.",
                    "headers": {
                      "Cache-Control": {
                        "schema": {
                          "type": "string",
                          "const": "no-cache"
                        }
                      },
                      "X-Accel-Buffering": {
                        "schema": {
                          "type": "string",
                          "const": "no"
                        }
                      },
                      "Content-Encoding": {
                        "$ref": "#/components/headers/StreamContentEncoding"
                      },
                      "Vary": {
                        "$ref": "#/components/headers/VaryAcceptEncoding"
                      }
                    },
                    "content": {
                      "text/event-stream": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/search": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "get": {
                "operationId": "getSearch",
                "tags": [
                  "search"
                ],
                "summary": "The search state",
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/SearchState"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/search/events": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "get": {
                "operationId": "streamSearch",
                "tags": [
                  "streams"
                ],
                "summary": "The search state as an event stream",
                "description": "Server-Sent Events. The first event is `event: snapshot` whose `data` is the full \#
        state; every later change is `event: patch` whose `data` is an RFC 6902 JSON Patch array taking the previous \#
        state to the new one. Every event's `id` is the state `version`. With `?format=snapshot` every change is a \#
        full `snapshot` event. Resume: with `Last-Event-ID` (or `?lastEventId=N`) the stream replays the patches \#
        after N if it still has them, else starts with a fresh snapshot; no change is skipped or sent out of order. \#
        The first bytes are sent at once: `retry: 3000`, then the events. A comment line (`: keepalive`) is sent at \#
        least every 15 s. A client reading too slowly has its pending patches dropped and gets a fresh snapshot when \#
        it catches up (or is disconnected). Deleting or expiring the session ends the stream.",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Format"
                  },
                  {
                    "$ref": "#/components/parameters/LastEventIDQuery"
                  },
                  {
                    "$ref": "#/components/parameters/LastEventIDHeader"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The event stream; it stays open until the client leaves, the session ends or the \#
        server shuts down.",
                    "headers": {
                      "Cache-Control": {
                        "schema": {
                          "type": "string",
                          "const": "no-cache"
                        }
                      },
                      "X-Accel-Buffering": {
                        "schema": {
                          "type": "string",
                          "const": "no"
                        }
                      },
                      "Content-Encoding": {
                        "$ref": "#/components/headers/StreamContentEncoding"
                      },
                      "Vary": {
                        "$ref": "#/components/headers/VaryAcceptEncoding"
                      }
                    },
                    "content": {
                      "text/event-stream": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/search/text": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "setSearchText",
                "tags": [
                  "search"
                ],
                "summary": "Set the search text",
                "description": "Sets `searchText` and answers the new state. With `autoSearch: true` a search runs \#
        300 ms after the last text change when `canSearch` (debounce).",
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/SetTextCommand"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/SearchState"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/search/execute": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "executeSearch",
                "tags": [
                  "search"
                ],
                "summary": "Search",
                "description": "Starts page 1 of a search (after setting `text` when given); a search already in \#
        flight is cancelled first (latest wins). `409` unless `canSearch`.",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Prefer"
                  }
                ],
                "requestBody": {
                  "description": "Optional.",
                  "required": false,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/ExecuteCommand"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/SearchWaited"
                  },
                  "202": {
                    "$ref": "#/components/responses/SearchAccepted"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "409": {
                    "$ref": "#/components/responses/CommandDisabled"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/search/load-more": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "loadMoreSearchResults",
                "tags": [
                  "search"
                ],
                "summary": "Load the next page of results",
                "description": "Appends the next page. `409` unless results are loaded, `canLoadMore`, and no search \#
        is in flight. No body (an empty JSON object, or any object, is accepted and ignored).",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Prefer"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/SearchWaited"
                  },
                  "202": {
                    "$ref": "#/components/responses/SearchAccepted"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "409": {
                    "$ref": "#/components/responses/CommandDisabled"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/search/cancel": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "cancelSearch",
                "tags": [
                  "search"
                ],
                "summary": "Cancel the search in flight",
                "description": "Aborts the in-flight search down to its upstream transfer; `isSearching` becomes \#
        false and `results` returns to what it was before that search, with no error. No body (an empty JSON object, \#
        or any object, is accepted and ignored).",
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/SearchState"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/search/visible": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "setVisiblePhotos",
                "tags": [
                  "search"
                ],
                "summary": "Report the photos on screen",
                "description": "Loads favorites and comments counts for these photos, at most once per photo, and \#
        cancels loads for photos no longer visible. With `Prefer: wait` it answers when their metadata has loaded.",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Prefer"
                  }
                ],
                "requestBody": {
                  "required": true,
                  "content": {
                    "application/json": {
                      "schema": {
                        "$ref": "#/components/schemas/VisibleCommand"
                      }
                    }
                  }
                },
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/SearchWaited"
                  },
                  "202": {
                    "$ref": "#/components/responses/SearchAccepted"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/products": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "get": {
                "operationId": "getProducts",
                "tags": [
                  "products"
                ],
                "summary": "The product list state",
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/ProductListState"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/products/events": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "get": {
                "operationId": "streamProducts",
                "tags": [
                  "streams"
                ],
                "summary": "The product list state as an event stream",
                "description": "Server-Sent Events. The first event is `event: snapshot` whose `data` is the full \#
        state; every later change is `event: patch` whose `data` is an RFC 6902 JSON Patch array taking the previous \#
        state to the new one. Every event's `id` is the state `version`. With `?format=snapshot` every change is a \#
        full `snapshot` event. Resume: with `Last-Event-ID` (or `?lastEventId=N`) the stream replays the patches \#
        after N if it still has them, else starts with a fresh snapshot; no change is skipped or sent out of order. \#
        The first bytes are sent at once: `retry: 3000`, then the events. A comment line (`: keepalive`) is sent at \#
        least every 15 s. A client reading too slowly has its pending patches dropped and gets a fresh snapshot when \#
        it catches up (or is disconnected). Deleting or expiring the session ends the stream.",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Format"
                  },
                  {
                    "$ref": "#/components/parameters/LastEventIDQuery"
                  },
                  {
                    "$ref": "#/components/parameters/LastEventIDHeader"
                  }
                ],
                "responses": {
                  "200": {
                    "description": "The event stream; it stays open until the client leaves, the session ends or the \#
        server shuts down.",
                    "headers": {
                      "Cache-Control": {
                        "schema": {
                          "type": "string",
                          "const": "no-cache"
                        }
                      },
                      "X-Accel-Buffering": {
                        "schema": {
                          "type": "string",
                          "const": "no"
                        }
                      },
                      "Content-Encoding": {
                        "$ref": "#/components/headers/StreamContentEncoding"
                      },
                      "Vary": {
                        "$ref": "#/components/headers/VaryAcceptEncoding"
                      }
                    },
                    "content": {
                      "text/event-stream": {
                        "schema": {
                          "type": "string"
                        }
                      }
                    }
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/products/refresh": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "refreshProducts",
                "tags": [
                  "products"
                ],
                "summary": "Pull to refresh",
                "description": "Loads page 1 and replaces `items` on success (items stay visible while refreshing); \#
        cancels a load-more in flight. No body (an empty JSON object, or any object, is accepted and ignored).",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Prefer"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/ProductsWaited"
                  },
                  "202": {
                    "$ref": "#/components/responses/ProductsAccepted"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/products/load-more": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "loadMoreProducts",
                "tags": [
                  "products"
                ],
                "summary": "Load the next page",
                "description": "Appends the next page. `409` unless a page is loaded, `hasMore`, and nothing is \#
        loading. No body (an empty JSON object, or any object, is accepted and ignored).",
                "parameters": [
                  {
                    "$ref": "#/components/parameters/Prefer"
                  }
                ],
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/ProductsWaited"
                  },
                  "202": {
                    "$ref": "#/components/responses/ProductsAccepted"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "409": {
                    "$ref": "#/components/responses/CommandDisabled"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            },
            "/v1/sessions/{id}/products/cancel": {
              "parameters": [
                {
                  "$ref": "#/components/parameters/SessionID"
                }
              ],
              "post": {
                "operationId": "cancelProducts",
                "tags": [
                  "products"
                ],
                "summary": "Cancel the load in flight",
                "description": "Aborts the in-flight load; the flags become false, `items` stay unchanged, no error. \#
        No body (an empty JSON object, or any object, is accepted and ignored).",
                "responses": {
                  "200": {
                    "$ref": "#/components/responses/ProductListState"
                  },
                  "400": {
                    "$ref": "#/components/responses/BadRequest"
                  },
                  "404": {
                    "$ref": "#/components/responses/SessionNotFound"
                  },
                  "413": {
                    "$ref": "#/components/responses/PayloadTooLarge"
                  },
                  "415": {
                    "$ref": "#/components/responses/UnsupportedMediaType"
                  },
                  "503": {
                    "$ref": "#/components/responses/Overloaded"
                  }
                }
              }
            }
          },
          "components": {
            "schemas": {
              "Error": {
                "type": "object",
                "description": "Every error answer: `{\"error\": {\"code\", \"message\"}}`. Codes: `invalid_json`, \#
        `invalid_field`, `invalid_path` (400), `session_not_found`, `not_found` (404), `method_not_allowed` (405), \#
        `command_disabled` (409), `body_too_large` (413), `unsupported_media_type` (415), `too_many_sessions` (429), \#
        `overloaded` (503) and `internal_error` (500, a bug).",
                "required": [
                  "error"
                ],
                "properties": {
                  "error": {
                    "type": "object",
                    "required": [
                      "code",
                      "message"
                    ],
                    "properties": {
                      "code": {
                        "type": "string",
                        "pattern": "^[a-z][a-z0-9_]*$",
                        "description": "Machine-readable snake_case code clients switch on.",
                        "examples": [
                          "session_not_found"
                        ]
                      },
                      "message": {
                        "type": "string",
                        "description": "Human-readable text; names the field for `invalid_field`."
                      }
                    },
                    "additionalProperties": false
                  }
                },
                "additionalProperties": false
              },
              "UpstreamError": {
                "type": "object",
                "description": "An upstream failure as the view models report it (API.md calls it the Error object).",
                "required": [
                  "kind",
                  "message",
                  "status",
                  "code"
                ],
                "properties": {
                  "kind": {
                    "type": "string",
                    "enum": [
                      "network",
                      "upstream",
                      "business",
                      "decoding"
                    ],
                    "description": "`network`: no response (refused, timed out, reset, too large); `upstream`: an \#
        HTTP error status; `business`: 200 with a failure in the body; `decoding`: an unreadable body."
                  },
                  "message": {
                    "type": "string"
                  },
                  "status": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "description": "The upstream HTTP status, when there was one."
                  },
                  "code": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "description": "The upstream's own error code, when it gave one."
                  }
                },
                "additionalProperties": false
              },
              "Loadable": {
                "type": "object",
                "description": "A value loaded from upstream: one status instead of flags that could contradict each \#
        other.",
                "required": [
                  "status",
                  "value",
                  "error"
                ],
                "properties": {
                  "status": {
                    "type": "string",
                    "enum": [
                      "idle",
                      "loading",
                      "loaded",
                      "failed"
                    ]
                  },
                  "value": {
                    "description": "The loaded value; while `loading` or after `failed`, the previous one (null when \#
        there is none)."
                  },
                  "error": {
                    "anyOf": [
                      {
                        "$ref": "#/components/schemas/UpstreamError"
                      },
                      {
                        "type": "null"
                      }
                    ],
                    "description": "The failure when `status` is `failed`, else null."
                  }
                },
                "additionalProperties": false
              },
              "Photo": {
                "type": "object",
                "description": "A photo cell of the search results.",
                "required": [
                  "id",
                  "title",
                  "url",
                  "favorites",
                  "comments"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "title": {
                    "type": "string"
                  },
                  "url": {
                    "type": "string",
                    "description": "The 240 px image."
                  },
                  "favorites": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "description": "Number of favorites; null until the photo's metadata is loaded."
                  },
                  "comments": {
                    "type": [
                      "integer",
                      "null"
                    ],
                    "description": "Number of comments; null until the photo's metadata is loaded."
                  }
                },
                "additionalProperties": false
              },
              "SearchResults": {
                "type": "object",
                "description": "The results of one search text, all pages loaded so far.",
                "required": [
                  "searchString",
                  "totalResults",
                  "page",
                  "pages",
                  "photos"
                ],
                "properties": {
                  "searchString": {
                    "type": "string",
                    "description": "The trimmed text searched for."
                  },
                  "totalResults": {
                    "type": "integer"
                  },
                  "page": {
                    "type": "integer",
                    "description": "The last page loaded."
                  },
                  "pages": {
                    "type": "integer"
                  },
                  "photos": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Photo"
                    },
                    "description": "Every page loaded, in order."
                  }
                },
                "additionalProperties": false
              },
              "RecentSearch": {
                "type": "object",
                "description": "A successful search, remembered in `recentSearches`.",
                "required": [
                  "searchString",
                  "totalResults",
                  "thumbnailUrl"
                ],
                "properties": {
                  "searchString": {
                    "type": "string"
                  },
                  "totalResults": {
                    "type": "integer"
                  },
                  "thumbnailUrl": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "The 75 px square of the first photo; null when there was none."
                  }
                },
                "additionalProperties": false
              },
              "SearchState": {
                "type": "object",
                "description": "The whole state of the Flickr search screen.",
                "required": [
                  "version",
                  "title",
                  "searchText",
                  "canSearch",
                  "isSearching",
                  "results",
                  "canLoadMore",
                  "recentSearches",
                  "lastError"
                ],
                "properties": {
                  "version": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Increases with every change."
                  },
                  "title": {
                    "type": "string",
                    "const": "Flickr Search"
                  },
                  "searchText": {
                    "type": "string",
                    "description": "The text in the search field, as typed."
                  },
                  "canSearch": {
                    "type": "boolean",
                    "description": "True exactly when `searchText`, trimmed, has more than 3 characters."
                  },
                  "isSearching": {
                    "type": "boolean",
                    "description": "A search (any page) is in flight."
                  },
                  "results": {
                    "allOf": [
                      {
                        "$ref": "#/components/schemas/Loadable"
                      },
                      {
                        "properties": {
                          "value": {
                            "anyOf": [
                              {
                                "$ref": "#/components/schemas/SearchResults"
                              },
                              {
                                "type": "null"
                              }
                            ]
                          }
                        }
                      }
                    ]
                  },
                  "canLoadMore": {
                    "type": "boolean",
                    "description": "Results are shown, more pages exist and nothing is in flight."
                  },
                  "recentSearches": {
                    "type": "array",
                    "maxItems": 10,
                    "items": {
                      "$ref": "#/components/schemas/RecentSearch"
                    },
                    "description": "Most recent first, unique by `searchString`."
                  },
                  "lastError": {
                    "anyOf": [
                      {
                        "$ref": "#/components/schemas/UpstreamError"
                      },
                      {
                        "type": "null"
                      }
                    ],
                    "description": "The most recent failure; cleared by the next successful load."
                  }
                },
                "additionalProperties": false
              },
              "Product": {
                "type": "object",
                "description": "A display-ready product cell: every string formatted on the server.",
                "required": [
                  "id",
                  "title",
                  "subtitle",
                  "price",
                  "badge",
                  "detail",
                  "imageUrl"
                ],
                "properties": {
                  "id": {
                    "type": "string"
                  },
                  "title": {
                    "type": "string"
                  },
                  "subtitle": {
                    "type": "string"
                  },
                  "price": {
                    "type": "string",
                    "description": "Formatted, e.g. `50,000.00` or `$9.99`."
                  },
                  "badge": {
                    "type": "string"
                  },
                  "detail": {
                    "type": "string"
                  },
                  "imageUrl": {
                    "type": [
                      "string",
                      "null"
                    ]
                  }
                },
                "additionalProperties": false
              },
              "ProductListState": {
                "type": "object",
                "description": "The whole state of the product list screen.",
                "required": [
                  "version",
                  "items",
                  "page",
                  "hasMore",
                  "isRefreshing",
                  "isLoadingMore",
                  "lastError"
                ],
                "properties": {
                  "version": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Increases with every change."
                  },
                  "items": {
                    "type": "array",
                    "items": {
                      "$ref": "#/components/schemas/Product"
                    },
                    "description": "Every item loaded, in order."
                  },
                  "page": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "The last page loaded; 0 before the first."
                  },
                  "hasMore": {
                    "type": "boolean"
                  },
                  "isRefreshing": {
                    "type": "boolean"
                  },
                  "isLoadingMore": {
                    "type": "boolean"
                  },
                  "lastError": {
                    "anyOf": [
                      {
                        "$ref": "#/components/schemas/UpstreamError"
                      },
                      {
                        "type": "null"
                      }
                    ],
                    "description": "The most recent failure; cleared by the next successful load."
                  }
                },
                "additionalProperties": false
              },
              "Session": {
                "type": "object",
                "description": "A session and the current state of each of its view models.",
                "required": [
                  "id",
                  "search",
                  "products"
                ],
                "properties": {
                  "id": {
                    "$ref": "#/components/schemas/SessionID"
                  },
                  "search": {
                    "$ref": "#/components/schemas/SearchState"
                  },
                  "products": {
                    "$ref": "#/components/schemas/ProductListState"
                  }
                },
                "additionalProperties": false
              },
              "SessionCreated": {
                "type": "object",
                "description": "A new session.",
                "required": [
                  "id",
                  "idleTimeout"
                ],
                "properties": {
                  "id": {
                    "$ref": "#/components/schemas/SessionID"
                  },
                  "idleTimeout": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Seconds without a request and without an open stream before it expires."
                  }
                },
                "additionalProperties": false
              },
              "SessionID": {
                "type": "string",
                "pattern": "^[A-Za-z0-9_-]{22}$",
                "description": "128 bits from a CSPRNG, base64url without padding. Knowing it is the capability to \#
        use the session."
              },
              "CommandAccepted": {
                "type": "object",
                "description": "A command was accepted; its effects arrive on the state stream.",
                "required": [
                  "version"
                ],
                "properties": {
                  "version": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "The view model's version now."
                  }
                },
                "additionalProperties": false
              },
              "Health": {
                "type": "object",
                "description": "The server is up.",
                "required": [
                  "status"
                ],
                "properties": {
                  "status": {
                    "type": "string",
                    "const": "ok"
                  }
                },
                "additionalProperties": false
              },
              "SetTextCommand": {
                "type": "object",
                "description": "Sets the search text. Unknown fields are ignored.",
                "required": [
                  "text"
                ],
                "properties": {
                  "text": {
                    "type": "string"
                  },
                  "autoSearch": {
                    "type": [
                      "boolean",
                      "null"
                    ],
                    "description": "When true, a search runs 300 ms after the last text change if `canSearch`."
                  }
                },
                "additionalProperties": true
              },
              "ExecuteCommand": {
                "type": "object",
                "description": "Starts page 1 of a search. Unknown fields are ignored.",
                "required": [],
                "properties": {
                  "text": {
                    "type": [
                      "string",
                      "null"
                    ],
                    "description": "Sets `searchText` first when given."
                  }
                },
                "additionalProperties": true
              },
              "VisibleCommand": {
                "type": "object",
                "description": "The photos now on screen. Unknown fields are ignored.",
                "required": [
                  "photoIds"
                ],
                "properties": {
                  "photoIds": {
                    "type": "array",
                    "maxItems": 500,
                    "items": {
                      "type": "string"
                    }
                  }
                },
                "additionalProperties": true
              }
            },
            "parameters": {
              "SessionID": {
                "name": "id",
                "in": "path",
                "required": true,
                "description": "The session id. Ids that were never issued, expired or were deleted answer 404.",
                "schema": {
                  "$ref": "#/components/schemas/SessionID"
                }
              },
              "Prefer": {
                "name": "Prefer",
                "in": "header",
                "required": false,
                "description": "`wait=N` (RFC 7240; seconds, at most 30): answer `200` with the state once the \#
        command has finished or N seconds have passed, instead of `202` at once.",
                "schema": {
                  "type": "string"
                },
                "examples": {
                  "wait": {
                    "value": "wait=5"
                  }
                }
              },
              "Format": {
                "name": "format",
                "in": "query",
                "required": false,
                "description": "`snapshot`: send every change as a full snapshot event instead of a patch. Any other \#
        value than `snapshot` (or the default `patch`) is `400 invalid_field`.",
                "schema": {
                  "type": "string",
                  "enum": [
                    "snapshot"
                  ]
                }
              },
              "LastEventIDQuery": {
                "name": "lastEventId",
                "in": "query",
                "required": false,
                "description": "Resume after this event id, like the `Last-Event-ID` header (which wins when both are \#
        given). A version for the per-view-model streams.",
                "schema": {
                  "type": "string"
                }
              },
              "LastEventIDHeader": {
                "name": "Last-Event-ID",
                "in": "header",
                "required": false,
                "description": "Resume after this event id (EventSource sends it when reconnecting).",
                "schema": {
                  "type": "string"
                }
              },
              "SessionLastEventIDQuery": {
                "name": "lastEventId",
                "in": "query",
                "required": false,
                "description": "Resume after this event id, `search:{version},products:{version}`, like the \#
        `Last-Event-ID` header (which wins when both are given). Malformed parts are ignored.",
                "schema": {
                  "type": "string"
                },
                "examples": {
                  "resume": {
                    "value": "search:5,products:3"
                  }
                }
              }
            },
            "headers": {
              "StreamContentEncoding": {
                "description": "`gzip` when the request's `Accept-Encoding` admits it: every event is flushed as \#
        it is written, so it decodes as it arrives.",
                "schema": {
                  "type": "string",
                  "const": "gzip"
                }
              },
              "VaryAcceptEncoding": {
                "schema": {
                  "type": "string",
                  "const": "Accept-Encoding"
                }
              },
              "X-Request-ID": {
                "description": "The request's id in the server's logs: the client's own `X-Request-ID` when it sent a \#
        valid one (1-64 characters of `A-Za-z0-9-_.`), else a generated one. On every response.",
                "schema": {
                  "type": "string"
                }
              },
              "Allow": {
                "description": "The methods the path supports, e.g. `DELETE, GET, HEAD`.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "responses": {
              "BadRequest": {
                "description": "`invalid_json` (the body is not a JSON object), `invalid_field` (a field is missing \#
        or of the wrong type; the message names it) or `invalid_path` (a malformed percent escape, or bytes \#
        that are not UTF-8, in the path or the query).",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "invalid_json",
                                    "invalid_field",
                                    "invalid_path"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  }
                }
              },
              "SessionNotFound": {
                "description": "`session_not_found`: the session never existed, expired or was deleted (`not_found` \#
        when the id is not a single non-empty path segment, so no route matches).",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "session_not_found",
                                    "not_found"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  }
                }
              },
              "MethodNotAllowed": {
                "description": "`method_not_allowed`: the path exists but not with this method (any method not \#
        documented for a path). `HEAD` is allowed wherever `GET` is.",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  },
                  "Allow": {
                    "$ref": "#/components/headers/Allow"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "method_not_allowed"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  }
                }
              },
              "CommandDisabled": {
                "description": "`command_disabled`: the command is not enabled in the current state; the message says \#
        why.",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "command_disabled"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  }
                }
              },
              "PayloadTooLarge": {
                "description": "`body_too_large`: the body exceeds `maxBodyBytes` (64 KiB by default). Bodies over 16 \#
        times that are cut off by the HTTP layer with a plain HTML `413`.",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "body_too_large"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  },
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              },
              "UnsupportedMediaType": {
                "description": "`unsupported_media_type`: a body was sent with a `Content-Type` other than \#
        `application/json` (or `application/*+json`).",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "unsupported_media_type"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  }
                }
              },
              "TooManySessions": {
                "description": "`too_many_sessions`: the server holds its maximum of sessions; try again later.",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "too_many_sessions"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  }
                }
              },
              "Overloaded": {
                "description": "`overloaded`: the server sheds load (e.g. a request on a connection past the \#
        connection limit, answered with `Retry-After` and a close); try again later.",
                "headers": {
                  "X-Request-ID": {
                    "$ref": "#/components/headers/X-Request-ID"
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "allOf": [
                        {
                          "$ref": "#/components/schemas/Error"
                        },
                        {
                          "properties": {
                            "error": {
                              "properties": {
                                "code": {
                                  "enum": [
                                    "overloaded"
                                  ]
                                }
                              }
                            }
                          }
                        }
                      ]
                    }
                  }
                }
              },
              "SearchState": {
                "description": "The search view model's state.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/SearchState"
                    }
                  }
                }
              },
              "ProductListState": {
                "description": "The product list view model's state.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ProductListState"
                    }
                  }
                }
              },
              "SearchAccepted": {
                "description": "Accepted; the state changes arrive on the event streams.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/CommandAccepted"
                    }
                  }
                }
              },
              "ProductsAccepted": {
                "description": "Accepted; the state changes arrive on the event streams.",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/CommandAccepted"
                    }
                  }
                }
              },
              "SearchWaited": {
                "description": "With `Prefer: wait=N`: the search state once the command finished (or N seconds \#
        passed).",
                "headers": {
                  "Preference-Applied": {
                    "description": "`wait=N`: the `Prefer: wait` that was honoured (N capped at 30).",
                    "schema": {
                      "type": "string",
                      "pattern": "^wait=[0-9]+$"
                    }
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/SearchState"
                    }
                  }
                }
              },
              "ProductsWaited": {
                "description": "With `Prefer: wait=N`: the product list state once the command finished (or N seconds \#
        passed).",
                "headers": {
                  "Preference-Applied": {
                    "description": "`wait=N`: the `Prefer: wait` that was honoured (N capped at 30).",
                    "schema": {
                      "type": "string",
                      "pattern": "^wait=[0-9]+$"
                    }
                  }
                },
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ProductListState"
                    }
                  }
                }
              }
            }
          }
        }
        """#
}
