import CHiredis
import CHiredisShims

/// One Redis reply, copied out of hiredis' reply inside the command callback (hiredis frees its own copy
/// right after).
public enum RedisReply: Equatable, Sendable {
    /// A simple string such as `OK` or `PONG`.
    case status(String)
    /// An error reply. At the top level `RedisClient.send` throws ``RedisError/server(_:)`` instead;
    /// this case appears inside arrays (for example in an `EXEC` result).
    case error(String)
    /// An integer reply.
    case integer(Int64)
    /// A bulk string: arbitrary bytes.
    case bulk([UInt8])
    /// The null bulk string or null array (a missing key).
    case null
    /// An array of replies.
    case array([RedisReply])

    /// The bytes of a bulk reply, or the UTF-8 of a status reply; nil otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case .bulk(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// A bulk or status reply as text (invalid UTF-8 repaired); nil otherwise.
    public var string: String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value of an integer reply; nil otherwise.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// Copies a hiredis reply; nil for a type this client does not know.
    init?(copying reply: UnsafePointer<redisReply>) {
        let type = vmh_redis_reply_type(reply)
        switch type {
        case vmh_redis_reply_type_status:
            self = .status(Self.text(reply))
        case vmh_redis_reply_type_error:
            self = .error(Self.text(reply))
        case vmh_redis_reply_type_integer:
            self = .integer(Int64(vmh_redis_reply_integer(reply)))
        case vmh_redis_reply_type_string:
            self = .bulk(Self.copyBytes(reply))
        case vmh_redis_reply_type_nil:
            self = .null
        case vmh_redis_reply_type_array:
            let count = vmh_redis_reply_element_count(reply)
            var elements: [RedisReply] = []
            elements.reserveCapacity(count)
            for index in 0..<count {
                guard let element = vmh_redis_reply_element(reply, index),
                    let copied = RedisReply(copying: element)
                else { return nil }
                elements.append(copied)
            }
            self = .array(elements)
        default:
            return nil
        }
    }

    /// The text of a status or error reply, decoded where hiredis holds it. NB: no copy into an array first: an
    /// `EXEC` answers `OK` for each command of a transaction, and a text that short is kept inside the `String`.
    private static func text(_ reply: UnsafePointer<redisReply>) -> String {
        let length = vmh_redis_reply_length(reply)
        guard length > 0, let start = vmh_redis_reply_string(reply) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
    }

    private static func copyBytes(_ reply: UnsafePointer<redisReply>) -> [UInt8] {
        let length = vmh_redis_reply_length(reply)
        guard length > 0, let start = vmh_redis_reply_string(reply) else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: length))
    }
}
