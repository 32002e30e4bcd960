import Foundation
import WaymarkCore

/// One entry of a reference library: what the manifest says about an image.
public struct ReferenceEntry: Equatable, Sendable {
    public var name: String
    /// Absolute or working-directory-relative path of the image file.
    public var path: String
    /// Physical width of the printed image in metres, when known: within `physicalWidthRange`.
    public var physicalWidth: Double?
    public var group: String?

    /// From a millimetre (a stamp seen under a microscope is out of reach anyway) to a
    /// kilometre (the largest billboards are a tenth of that); outside it poses overflow or
    /// vanish, so a width there is a mistake in the manifest.
    public static let physicalWidthRange = 0.001...1000.0

    public init(name: String, path: String, physicalWidth: Double? = nil, group: String? = nil) {
        self.name = name
        self.path = path
        self.physicalWidth = physicalWidth
        self.group = group
    }
}

/// The reference images an app may look for, loaded from a manifest or a folder.
public struct ReferenceLibrary: Sendable {
    /// The most reference images searched at once (the HIG's limit).
    public static let maxActiveImages = 25

    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "tif", "tiff", "ppm", "pgm", "webp"]

    public private(set) var entries: [ReferenceEntry]

    public init(entries: [ReferenceEntry]) throws(WaymarkError) {
        guard !entries.isEmpty else { throw WaymarkError(.badData, "the reference library has no images") }
        var seen = Set<String>()
        for entry in entries {
            guard !entry.name.isEmpty else { throw WaymarkError(.badData, "a reference image has an empty name") }
            guard seen.insert(entry.name).inserted else {
                throw WaymarkError(.badData, "two reference images are named '\(entry.name)'; names must be unique")
            }
            if let width = entry.physicalWidth, !ReferenceEntry.physicalWidthRange.contains(width) {
                throw WaymarkError(
                    .badData, "reference image '\(entry.name)' has physicalWidth \(width); it must be a width in metres "
                        + "from \(ReferenceEntry.physicalWidthRange.lowerBound) to \(Int(ReferenceEntry.physicalWidthRange.upperBound))")
            }
        }
        self.entries = entries
    }

    /// Loads a manifest (`.json`), every image in a folder, or a single image file.
    public init(contentsOf path: String) throws(WaymarkError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw WaymarkError(.missingInput, "no such reference manifest or folder: \(path)")
        }
        let url = URL(fileURLWithPath: path)
        if isDirectory.boolValue {
            try self.init(folder: path)
        } else if Self.imageExtensions.contains(url.pathExtension.lowercased()) {
            try self.init(entries: [ReferenceEntry(name: url.deletingPathExtension().lastPathComponent, path: path)])
        } else {
            try self.init(manifest: path)
        }
    }

    public var groups: [String] { Array(Set(entries.compactMap(\.group))).sorted() }

    /// The entries in the `active` groups (every entry when `active` is empty).
    public func entries(inGroups active: Set<String>) throws(WaymarkError) -> [ReferenceEntry] {
        let unknown = active.subtracting(groups)
        guard unknown.isEmpty else {
            let known = groups.isEmpty ? "the library has no groups" : "groups are: \(groups.joined(separator: ", "))"
            throw WaymarkError(.usage, "unknown reference group '\(unknown.sorted()[0])'; \(known)")
        }
        return active.isEmpty ? entries : entries.filter { $0.group.map(active.contains) ?? false }
    }

    /// What a session searches: the active groups' entries (at most 25, else an error that
    /// names the limit), or with `autoSelect` every entry of those groups, a retrieval step
    /// choosing the 25 most likely per frame.
    public func searchedEntries(groups active: Set<String>, autoSelect: Bool) throws(WaymarkError)
        -> (entries: [ReferenceEntry], selection: ReferenceSelection)
    {
        guard autoSelect else { return (try activeEntries(groups: active), .all) }
        let chosen = try entries(inGroups: active)
        return (chosen, .retrieval(limit: min(Self.maxActiveImages, max(1, chosen.count))))
    }

    /// The entries searched in every frame when `groups` are active. More than 25 is an error
    /// that names the limit.
    public func activeEntries(groups active: Set<String>) throws(WaymarkError) -> [ReferenceEntry] {
        let chosen = try entries(inGroups: active)
        guard chosen.count <= Self.maxActiveImages else {
            let hint = groups.isEmpty
                ? "split the library into groups or use --auto-select"
                : "choose groups with --group (\(groups.joined(separator: ", "))) or use --auto-select"
            throw WaymarkError(
                .usage,
                "\(chosen.count) reference images would be searched at once, more than the limit of \(Self.maxActiveImages); \(hint)")
        }
        return chosen
    }
}

extension ReferenceLibrary {
    private struct Manifest: Decodable {
        struct Image: Decodable {
            var name: String
            var path: String
            var physicalWidth: Double?
            var group: String?
        }
        var images: [Image]
    }

    init(manifest path: String) throws(WaymarkError) {
        // A manifest of a million images is ~100 MB of JSON.
        let bytes = try readFileBytes(path, maxBytes: 256 << 20)
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, context) {
            throw WaymarkError(
                .badData, "reference manifest \(path): missing \"\(key.stringValue)\"\(Self.location(context.codingPath))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw WaymarkError(
                .badData, "reference manifest \(path): wrong type\(Self.location(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw WaymarkError(
                .badData, "reference manifest \(path) is not valid JSON of the form {\"images\":[{\"name\":...,\"path\":...}]}")
        }
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        let entries = manifest.images.map { image in
            ReferenceEntry(
                name: image.name,
                path: image.path.hasPrefix("/") ? image.path : base.appendingPathComponent(image.path).path,
                physicalWidth: image.physicalWidth, group: image.group)
        }
        for entry in entries where !FileManager.default.fileExists(atPath: entry.path) {
            throw WaymarkError(.missingInput, "reference image '\(entry.name)': no such file \(entry.path)")
        }
        try self.init(entries: entries)
    }

    init(folder path: String) throws(WaymarkError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw WaymarkError(.missingInput, "cannot list reference folder \(path)")
        }
        let base = URL(fileURLWithPath: path)
        let entries = names.compactMap { name -> ReferenceEntry? in
            let url = base.appendingPathComponent(name)
            guard Self.imageExtensions.contains(url.pathExtension.lowercased()) else { return nil }
            return ReferenceEntry(name: url.deletingPathExtension().lastPathComponent, path: url.path)
        }
        guard !entries.isEmpty else { throw WaymarkError(.badData, "reference folder \(path) holds no images") }
        try self.init(entries: entries)
    }

    private static func location(_ path: [any CodingKey]) -> String {
        let parts = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
        return parts.isEmpty ? "" : " at \(parts.joined())"
    }
}
