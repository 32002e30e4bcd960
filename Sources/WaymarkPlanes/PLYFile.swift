import WaymarkCore

/// PLY: the vertex element's x, y, z, from ascii or binary files; other elements are skipped.
enum PLYFile {
    private struct Property {
        var name: String
        var type: ScalarType
        /// For list properties: the type of the length that precedes the items.
        var listCountType: ScalarType?
    }

    private struct Element {
        var name: String
        var count: Int
        var properties: [Property] = []
    }

    private enum Format { case ascii, binary(bigEndian: Bool) }

    static func decode(_ bytes: [UInt8], path: String, limits: InputLimits) throws(WaymarkError) -> PointCloud {
        func bad(_ why: String) -> WaymarkError { WaymarkError(.badData, "\(path) is not a readable PLY file: \(why)") }
        var cursor = ByteCursor(bytes)
        guard cursor.line() == "ply" else { throw bad("it does not start with 'ply'") }
        var format: Format?
        var elements: [Element] = []
        headerLoop: while true {
            guard let line = cursor.line() else { throw bad("the header has no end_header line") }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            switch words.first {
            case "format":
                switch words.dropFirst().first {
                case "ascii": format = .ascii
                case "binary_little_endian": format = .binary(bigEndian: false)
                case "binary_big_endian": format = .binary(bigEndian: true)
                default: throw bad("unknown format '\(line)'")
                }
            case "element":
                guard words.count == 3, let count = Int(words[2]), count >= 0 else { throw bad("malformed '\(line)'") }
                elements.append(Element(name: words[1], count: count))
            case "property":
                guard !elements.isEmpty else { throw bad("a property comes before any element") }
                if words.count == 5, words[1] == "list", let countType = scalarType(words[2]),
                    let itemType = scalarType(words[3])
                {
                    elements[elements.count - 1].properties.append(
                        Property(name: words[4], type: itemType, listCountType: countType))
                } else if words.count == 3, let type = scalarType(words[1]) {
                    elements[elements.count - 1].properties.append(Property(name: words[2], type: type))
                } else {
                    throw bad("malformed '\(line)'")
                }
            case "end_header": break headerLoop
            case "comment", "obj_info", nil: continue
            default: throw bad("unexpected header line '\(line)'")
            }
        }
        guard let format else { throw bad("the header has no format line") }
        guard let vertexIndex = elements.firstIndex(where: { $0.name == "vertex" }) else {
            throw bad("it has no vertex element")
        }
        let vertex = elements[vertexIndex]
        let coordinates = ["x", "y", "z"].map { name in vertex.properties.firstIndex { $0.name == name } }
        guard let xi = coordinates[0], let yi = coordinates[1], let zi = coordinates[2],
            vertex.properties.allSatisfy({ $0.listCountType == nil })
        else { throw bad("its vertices lack x, y or z (or carry lists)") }
        try limits.checkPoints(vertex.count, of: path)
        // Before anything is allocated for them: the vertices the header declares must fit in
        // the bytes after it (a value and a separator at the least for each ascii number).
        let minimumVertexBytes = switch format {
        case .ascii: 2 * vertex.properties.count
        case .binary: vertex.properties.reduce(0) { $0 + $1.type.size }
        }
        let room = cursor.remaining / max(minimumVertexBytes, 1)
        if case .binary = format, vertex.count > room {
            throw bad(vertexIndex == 0 ? "it ends after \(room) of \(vertex.count) vertices"
                : "its \(cursor.remaining) bytes of data hold at most \(room) of the \(vertex.count) vertices it declares")
        }

        var points = [SIMD3<Float>]()
        points.reserveCapacity(min(vertex.count, room))
        switch format {
        case .ascii:
            var values = [Double](repeating: 0, count: vertex.properties.count)
            for element in elements[..<vertexIndex] {
                for _ in 0..<element.count where cursor.line() == nil { throw bad("it ends inside '\(element.name)'") }
            }
            for index in 0..<vertex.count {
                guard let line = cursor.line() else { throw bad("it ends after \(index) of \(vertex.count) vertices") }
                let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard words.count >= values.count else { throw bad("vertex \(index) has too few values") }
                for p in values.indices {
                    guard let value = Double(words[p]) else { throw bad("vertex \(index) has a non-number '\(words[p])'") }
                    values[p] = value
                }
                points.append(SIMD3(Float(values[xi]), Float(values[yi]), Float(values[zi])))
            }
        case .binary(let bigEndian):
            try bytes.withUnsafeBufferPointer { buffer throws(WaymarkError) in
                var offset = cursor.position
                // An element without properties has rows of no bytes: nothing to skip, however
                // many it declares (the fuzzer's 10¹⁵ of them took minutes to count through).
                for element in elements[..<vertexIndex] where !element.properties.isEmpty {
                    for _ in 0..<element.count {
                        guard offset < buffer.count else { throw bad("it ends inside '\(element.name)'") }
                        for property in element.properties {
                            if let countType = property.listCountType {
                                guard offset + countType.size <= buffer.count else {
                                    throw bad("it ends inside '\(element.name)'")
                                }
                                // The length is the file's word: a negative, fractional or huge one
                                // once moved the reads below outside the buffer (found by fuzzing).
                                let room = (buffer.count - offset - countType.size) / property.type.size
                                guard let items = Int(exactly: countType.value(in: buffer, at: offset, bigEndian: bigEndian)),
                                    (0...room).contains(items)
                                else { throw bad("a list in '\(element.name)' has a length that does not fit the file") }
                                offset += countType.size + items * property.type.size
                            } else {
                                offset += property.type.size
                            }
                        }
                    }
                }
                let offsets = vertex.properties.reduce(into: [0]) { $0.append($0.last! + $1.type.size) }
                let stride = offsets.last!
                let available = max(0, buffer.count - offset) / max(stride, 1)
                guard available >= vertex.count else {
                    throw bad("it ends after \(available) of \(vertex.count) vertices")
                }
                for index in 0..<vertex.count {
                    let base = offset + index * stride
                    func value(_ p: Int) -> Float {
                        Float(vertex.properties[p].type.value(in: buffer, at: base + offsets[p], bigEndian: bigEndian))
                    }
                    points.append(SIMD3(value(xi), value(yi), value(zi)))
                }
            }
        }
        return PointCloud(points: points)
    }

    private static func scalarType(_ name: String) -> ScalarType? {
        switch name {
        case "char", "int8": .int(bytes: 1)
        case "uchar", "uint8": .uint(bytes: 1)
        case "short", "int16": .int(bytes: 2)
        case "ushort", "uint16": .uint(bytes: 2)
        case "int", "int32": .int(bytes: 4)
        case "uint", "uint32": .uint(bytes: 4)
        case "float", "float32": .float(bytes: 4)
        case "double", "float64": .float(bytes: 8)
        default: nil
        }
    }
}
