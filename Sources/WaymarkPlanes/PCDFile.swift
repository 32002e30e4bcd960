import WaymarkCore

/// PCD (v0.6/v0.7): x, y, z from ascii, binary and binary_compressed (LZF) data.
enum PCDFile {
    private struct Field {
        var name: String
        var type: ScalarType
        var count: Int
    }

    static func decode(_ bytes: [UInt8], path: String, limits: InputLimits) throws(WaymarkError) -> PointCloud {
        func bad(_ why: String) -> WaymarkError { WaymarkError(.badData, "\(path) is not a readable PCD file: \(why)") }
        var cursor = ByteCursor(bytes)
        var header: [String: [String]] = [:]
        var data: String?
        while data == nil {
            guard let line = cursor.line() else { throw bad("the header has no DATA line") }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let key = words.first, !key.hasPrefix("#") else { continue }
            if key == "DATA" { data = words.dropFirst().first ?? "" } else { header[key] = Array(words.dropFirst()) }
        }
        guard let names = header["FIELDS"], let sizes = header["SIZE"]?.compactMap({ Int($0) }),
            let types = header["TYPE"], sizes.count == names.count, types.count == names.count
        else { throw bad("FIELDS, SIZE and TYPE are missing or disagree") }
        let counts = header["COUNT"]?.compactMap { Int($0) } ?? Array(repeating: 1, count: names.count)
        guard counts.count == names.count else { throw bad("COUNT disagrees with FIELDS") }
        var fields: [Field] = []
        for i in names.indices {
            let type: ScalarType? = switch (types[i], sizes[i]) {
            case ("F", 4), ("F", 8): .float(bytes: sizes[i])
            case ("I", 1), ("I", 2), ("I", 4), ("I", 8): .int(bytes: sizes[i])
            case ("U", 1), ("U", 2), ("U", 4), ("U", 8): .uint(bytes: sizes[i])
            default: nil
            }
            guard let type else { throw bad("field '\(names[i])' has type \(types[i]) of size \(sizes[i])") }
            // PCL's widest fields (feature histograms) hold a few hundred values.
            guard (1...65536).contains(counts[i]) else { throw bad("field '\(names[i])' has COUNT \(counts[i])") }
            fields.append(Field(name: names[i], type: type, count: counts[i]))
        }
        guard let width = header["WIDTH"]?.first.flatMap({ Int($0) }), width > 0 else { throw bad("WIDTH is missing") }
        let height = header["HEIGHT"]?.first.flatMap { Int($0) } ?? 1
        let (gridCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard height > 0, !overflow else { throw bad("HEIGHT is missing or WIDTH × HEIGHT is too large") }
        let count = header["POINTS"]?.first.flatMap { Int($0) } ?? gridCount
        guard count == gridCount else { throw bad("POINTS is not WIDTH × HEIGHT") }
        try limits.checkPoints(count, of: path)
        let coordinates = ["x", "y", "z"].map { name in fields.firstIndex { $0.name == name } }
        guard let xi = coordinates[0], let yi = coordinates[1], let zi = coordinates[2] else {
            throw bad("it has no x, y and z fields")
        }
        let fieldOffsets = fields.reduce(into: [0]) { $0.append($0.last! + $1.type.size * $1.count) }
        let recordSize = fieldOffsets.last!
        // Before anything is allocated for them: the points the header declares must fit in the
        // bytes after it (ascii: a value and a separator at the least for each number; compressed
        // data is checked against its declared size below).
        let minimumPointBytes = data == "ascii" ? 2 * fields.reduce(0) { $0 + $1.count } : data == "binary" ? recordSize : 0
        let room = minimumPointBytes == 0 ? count : cursor.remaining / minimumPointBytes
        guard count <= room else {
            if data == "binary" { throw bad("it ends after \(room) of \(count) points") }
            throw bad("its \(cursor.remaining) bytes of data hold at most \(room) of the \(count) points it declares")
        }

        var points = [SIMD3<Float>](repeating: SIMD3(repeating: .nan), count: count)
        switch data {
        case "ascii":
            for index in 0..<count {
                guard let line = cursor.line() else { throw bad("it ends after \(index) of \(count) points") }
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                // Each field contributes `count` words; x, y and z are scalars.
                let wordOffsets = fields.reduce(into: [0]) { $0.append($0.last! + $1.count) }
                guard words.count >= wordOffsets.last! else { throw bad("point \(index) has too few values") }
                func value(_ field: Int) -> Float { Float(words[wordOffsets[field]]) ?? .nan }
                points[index] = SIMD3(value(xi), value(yi), value(zi))
            }
        case "binary":
            try bytes.withUnsafeBufferPointer { buffer throws(WaymarkError) in
                let start = cursor.position
                let available = max(0, buffer.count - start) / recordSize
                guard available >= count else { throw bad("it ends after \(available) of \(count) points") }
                for index in 0..<count {
                    let base = start + index * recordSize
                    func value(_ f: Int) -> Float { Float(fields[f].type.value(in: buffer, at: base + fieldOffsets[f])) }
                    points[index] = SIMD3(value(xi), value(yi), value(zi))
                }
            }
        case "binary_compressed":
            let start = cursor.position
            guard bytes.count - start >= 8 else { throw bad("the compressed block has no sizes") }
            func word(_ at: Int) -> Int {
                Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
            }
            let compressedSize = word(start)
            let expandedSize = word(start + 4)
            guard expandedSize == recordSize * count else { throw bad("the compressed block's size does not fit the fields") }
            guard bytes.count - start - 8 >= compressedSize else { throw bad("the compressed block is truncated") }
            // An LZF back-reference of 3 bytes expands to at most 264.
            guard expandedSize <= 88 * compressedSize else { throw bad("the compressed block cannot expand to its declared size") }
            guard let expanded = LZF.decompress(bytes[(start + 8)..<(start + 8 + compressedSize)], size: expandedSize)
            else { throw bad("the compressed block is corrupt") }
            // Field by field: all points' first field, then all points' second field, ...
            expanded.withUnsafeBufferPointer { buffer in
                func value(_ f: Int, _ index: Int) -> Float {
                    let size = fields[f].type.size * fields[f].count
                    return Float(fields[f].type.value(in: buffer, at: fieldOffsets[f] * count + index * size))
                }
                for index in 0..<count { points[index] = SIMD3(value(xi, index), value(yi, index), value(zi, index)) }
            }
        default:
            throw bad("DATA '\(data ?? "")' is not ascii, binary or binary_compressed")
        }
        return PointCloud(points: points, width: width, height: height)
    }
}

/// LZF decompression (the format liblzf writes and PCL uses for binary_compressed).
enum LZF {
    static func decompress(_ input: ArraySlice<UInt8>, size: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: size)
        var i = input.startIndex
        var o = 0
        while i < input.endIndex {
            let control = Int(input[i])
            i += 1
            if control < 32 {
                let length = control + 1
                guard i + length <= input.endIndex, o + length <= size else { return nil }
                for k in 0..<length { output[o + k] = input[i + k] }
                i += length
                o += length
            } else {
                var length = control >> 5
                if length == 7 {
                    guard i < input.endIndex else { return nil }
                    length += Int(input[i])
                    i += 1
                }
                guard i < input.endIndex else { return nil }
                let reference = o - ((control & 0x1F) << 8) - Int(input[i]) - 1
                i += 1
                length += 2
                guard reference >= 0, o + length <= size else { return nil }
                for k in 0..<length { output[o + k] = output[reference + k] }
                o += length
            }
        }
        return o == size ? output : nil
    }
}
