import Foundation
import Waymark

/// A synthetic RGB-D walk-through of a furnished room with exact ground truth: textured
/// rectangles (floor, ceiling, four walls, two tables at the same height, posters with real
/// images on the walls), a scripted hand-held camera path with seeded shake, and the trouble
/// segments later capabilities are tested on: darkness, fast motion with motion blur, a
/// textureless wall filling the view, an interruption (a gap in time), and a return to an
/// earlier view from another angle.
///
/// World coordinates: metres, y up, gravity along −y; the room spans x −3…3, y 0…2.6, z −2.5…2.5.
public struct Walkthrough: Sendable {
    public struct Surface: Sendable {
        public var id: Int
        public var name: String
        /// floor, ceiling, wall or table.
        public var kind: String
        /// Corner and edge vectors: the rectangle origin + s·u + t·v, s and t in 0…1.
        public var origin: SIMD3<Double>
        public var u: SIMD3<Double>
        public var v: SIMD3<Double>
        /// Facing into the room.
        public var normal: SIMD3<Double>
        var texture: Texture

        public var plane: Plane { Plane(normal: normal, offset: -(normal * origin).sum()) }
        public var corners: [SIMD3<Double>] { [origin, origin + u, origin + u + v, origin + v] }
    }

    public struct Poster: Sendable {
        public var name: String
        public var imagePath: String
        public var surfaceID: Int
        /// Image corner (0,0) in the world, and the world vectors of the image's width and height.
        public var origin: SIMD3<Double>
        public var u: SIMD3<Double>
        public var v: SIMD3<Double>
        var texture: Texture
        public var physicalWidth: Double { (u * u).sum().squareRoot() }
    }

    /// The camera path: `standard` runs through every trouble back to back; `coaching` spaces
    /// them with calm stretches (each trouble 1.5–3 s, at least 3 s of calm between) so each
    /// coaching message can be seen to come and go on its own, and the camera after its
    /// interruption looks somewhere unmapped first, then turns back to where it was.
    /// `tableTop` is a table-top scene (three small boxes and a poster lying on the table,
    /// finely textured) that the camera circles once at 0.3–0.6 m, looking down at it: the
    /// scale of a robot arm's camera or a phone held over a desk.
    public enum Script: String, Sendable {
        case standard, coaching, tableTop = "table-top"
    }

    public enum Segment: String, Sendable, CaseIterable {
        case scan, dark, fast, textureless, afterInterruption = "after-interruption", returnView = "return"
    }

    public struct Frame: Sendable {
        public var index: Int
        public var timestamp: Double
        public var cameraToWorld: RigidTransform
        public var segment: Segment
        /// 1 normally; the darkness segment is much darker.
        public var brightness: Double
        /// The light's strength and colour, per channel (RGB) in linear light: (1, 1, 1) as the
        /// room is rendered; a harness relights frames to script a change of light.
        public var light = SIMD3<Double>(1, 1, 1)
        /// Poses averaged into the colour image (motion blur); the last is `cameraToWorld`.
        var exposure: [RigidTransform]
    }

    struct Texture: Sendable {
        var width: Int
        var height: Int
        /// BGR.
        var pixels: [UInt8]
        /// Texture pixels per metre; tiled when the surface is larger.
        var pixelsPerMetre: Double

        /// Mean luminance in linear light, 0–1.
        var meanLuminance: Double { Image(width: width, height: height, channels: 3, pixels: pixels).meanLuminance() }

        static func flat(_ b: UInt8, _ g: UInt8, _ r: UInt8) -> Texture {
            Texture(width: 1, height: 1, pixels: [b, g, r], pixelsPerMetre: 1)
        }

        @inline(__always)
        func sample(s: Double, t: Double, extentU: Double, extentV: Double) -> (UInt8, UInt8, UInt8) {
            let x = Int(s * extentU * pixelsPerMetre) % width
            let y = Int(t * extentV * pixelsPerMetre) % height
            let i = 3 * (max(0, y) * width + max(0, x))
            return (pixels[i], pixels[i + 1], pixels[i + 2])
        }
    }

    public let width: Int
    public let height: Int
    public let intrinsics: Intrinsics
    public let framesPerSecond: Double
    public let surfaces: [Surface]
    public let posters: [Poster]
    public let frames: [Frame]
    /// A distant light over the room's even light, for the light's direction to be found; nil
    /// (the default) renders the room evenly lit, as every script is.
    public var sunlight: Sunlight?

    /// A distant light: a surface gets `ambient` + (1 − `ambient`) · max(0, n · `direction`) of
    /// its even-lit radiance (linear light), so one facing the light is as it is without it.
    public struct Sunlight: Sendable {
        /// Unit vector, world coordinates, towards the light.
        public var direction: SIMD3<Double>
        public var ambient: Double
        /// Every surface scaled to one mean albedo (its texture and tint kept): the room as if
        /// painted in one lightness, posters apart.
        public var evenAlbedo: Bool

        public init(direction: SIMD3<Double>, ambient: Double, evenAlbedo: Bool = false) {
            self.direction = direction / (direction * direction).sum().squareRoot()
            self.ambient = ambient
            self.evenAlbedo = evenAlbedo
        }
    }

    /// `posterFolder` holds graf1.png, building.jpg, fruits.jpg and baboon.jpg (opencv-doc's
    /// examples/data). Sizes other than 640×480 scale the intrinsics (525 px at 640 wide).
    public init(posterFolder: URL, width: Int = 640, height: Int = 480, framesPerSecond: Double = 30, seed: UInt64 = 1,
                script: Script = .standard) throws
    {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        let f = 525.0 * Double(width) / 640
        intrinsics = Intrinsics(fx: f, fy: f, cx: Double(width) / 2, cy: Double(height) / 2)
        var generator = SeededGenerator(seed: seed)
        // As large as its surface: a tiled texture would repeat itself exactly every few
        // metres, a place no relocalizer could tell from its copies.
        // 160 pixels a metre suits a room seen from 1–4 m; a table top seen from 0.3 m needs
        // five times as many, or its texture is a blur.
        let detail = script == .tableTop ? 800.0 : 160
        func wallpaper(_ tint: (Double, Double, Double), _ salt: UInt64, _ extent: (u: Double, v: Double),
                       pixelsPerMetre: Double = 160) -> Texture
        {
            let (w, h) = (Int((extent.u * pixelsPerMetre).rounded(.up)), Int((extent.v * pixelsPerMetre).rounded(.up)))
            let gray = syntheticTexture(width: w, height: h, seed: seed &+ salt).pixels
            let pixels = gray.flatMap { g -> [UInt8] in
                [UInt8(Double(g) * tint.0), UInt8(Double(g) * tint.1), UInt8(Double(g) * tint.2)]
            }
            return Texture(width: w, height: h, pixels: pixels, pixelsPerMetre: pixelsPerMetre)
        }
        let (x0, x1, y1, z0, z1) = (-3.0, 3.0, 2.6, -2.5, 2.5)
        surfaces = [
            Surface(id: 1, name: "floor", kind: "floor", origin: SIMD3(x0, 0, z0), u: SIMD3(x1 - x0, 0, 0),
                    v: SIMD3(0, 0, z1 - z0), normal: SIMD3(0, 1, 0), texture: wallpaper((0.55, 0.75, 0.95), 1, (x1 - x0, z1 - z0))),
            Surface(id: 2, name: "ceiling", kind: "ceiling", origin: SIMD3(x0, y1, z0), u: SIMD3(x1 - x0, 0, 0),
                    v: SIMD3(0, 0, z1 - z0), normal: SIMD3(0, -1, 0), texture: wallpaper((0.9, 0.9, 0.9), 2, (x1 - x0, z1 - z0))),
            Surface(id: 3, name: "north wall", kind: "wall", origin: SIMD3(x0, 0, z0), u: SIMD3(x1 - x0, 0, 0),
                    v: SIMD3(0, y1, 0), normal: SIMD3(0, 0, 1), texture: wallpaper((0.8, 0.9, 0.85), 3, (x1 - x0, y1))),
            Surface(id: 4, name: "south wall", kind: "wall", origin: SIMD3(x0, 0, z1), u: SIMD3(x1 - x0, 0, 0),
                    v: SIMD3(0, y1, 0), normal: SIMD3(0, 0, -1), texture: wallpaper((0.85, 0.8, 0.9), 4, (x1 - x0, y1))),
            Surface(id: 5, name: "west wall", kind: "wall", origin: SIMD3(x0, 0, z0), u: SIMD3(0, 0, z1 - z0),
                    v: SIMD3(0, y1, 0), normal: SIMD3(1, 0, 0), texture: wallpaper((0.9, 0.85, 0.8), 5, (z1 - z0, y1))),
            // Painted plain: the textureless wall.
            Surface(id: 6, name: "east wall", kind: "wall", origin: SIMD3(x1, 0, z0), u: SIMD3(0, 0, z1 - z0),
                    v: SIMD3(0, y1, 0), normal: SIMD3(-1, 0, 0), texture: .flat(196, 204, 210)),
            Surface(id: 7, name: "table", kind: "table", origin: SIMD3(-0.6, 0.75, -1.5), u: SIMD3(1.2, 0, 0),
                    v: SIMD3(0, 0, 0.8), normal: SIMD3(0, 1, 0),
                    texture: wallpaper((0.35, 0.55, 0.8), 7, (1.2, 0.8), pixelsPerMetre: detail)),
            // As high as the table, apart from it: coplanar but a separate surface.
            Surface(id: 8, name: "side table", kind: "table", origin: SIMD3(1.6, 0.75, 0.6), u: SIMD3(0.8, 0, 0),
                    v: SIMD3(0, 0, 0.8), normal: SIMD3(0, 1, 0), texture: wallpaper((0.4, 0.5, 0.7), 8, (0.8, 0.8))),
        ] + (script == .tableTop ? Self.boxes(on: 0.75, firstID: 9, wallpaper: { wallpaper($0, $1, $2, pixelsPerMetre: detail) }) : [])
        var posters: [Poster] = []
        for (name, file, left, bottom, widthMetres, surfaceID) in [
            ("graf1", "graf1.png", -1.9, 1.1, 0.8, 3), ("building", "building.jpg", 0.6, 1.2, 0.6, 3),
            ("fruits", "fruits.jpg", x0, 1.0, 0.7, 5), ("baboon", "baboon.jpg", 1.2, 1.0, 0.5, 4),
        ] + (script == .tableTop ? [("lying building", "building.jpg", -0.3, -1.0, 0.24, 7)] : []) {
            let path = posterFolder.appendingPathComponent(file).path
            let image = try Image(contentsOf: path, gray: false)
            let aspect = Double(image.height) / Double(image.width)
            let texture = Texture(width: image.width, height: image.height, pixels: image.pixels,
                                  pixelsPerMetre: Double(image.width) / widthMetres)
            let poster: Poster
            switch surfaceID {
            case 3:  // north wall, seen from inside: image x along +x
                poster = Poster(name: name, imagePath: path, surfaceID: 3, origin: SIMD3(left, bottom + widthMetres * aspect, z0),
                                u: SIMD3(widthMetres, 0, 0), v: SIMD3(0, -widthMetres * aspect, 0), texture: texture)
            case 5:  // west wall: image x along −z… seen from inside, x runs towards +z
                poster = Poster(name: name, imagePath: path, surfaceID: 5, origin: SIMD3(left, bottom + widthMetres * aspect, -0.4),
                                u: SIMD3(0, 0, widthMetres), v: SIMD3(0, -widthMetres * aspect, 0), texture: texture)
            case 7:  // lying on the table, its top towards −z: `left` is x, `bottom` the z of its lower edge
                poster = Poster(name: name, imagePath: path, surfaceID: 7, origin: SIMD3(left, 0.75, bottom - widthMetres * aspect),
                                u: SIMD3(widthMetres, 0, 0), v: SIMD3(0, 0, widthMetres * aspect), texture: texture)
            default:  // south wall: seen from inside, image x runs towards −x
                poster = Poster(name: name, imagePath: path, surfaceID: 4,
                                origin: SIMD3(left + widthMetres, bottom + widthMetres * aspect, z1),
                                u: SIMD3(-widthMetres, 0, 0), v: SIMD3(0, -widthMetres * aspect, 0), texture: texture)
            }
            posters.append(poster)
        }
        self.posters = posters
        frames = switch script {
        case .standard: Self.frames(Self.standardPlan, framesPerSecond: framesPerSecond, generator: &generator)
        case .coaching: Self.frames(Self.coachingPlan, framesPerSecond: framesPerSecond, generator: &generator)
        case .tableTop: Self.circlingFrames(framesPerSecond: framesPerSecond, generator: &generator)
        }
    }

    /// Three boxes (top and four sides each) standing on a table whose top is at height `y`.
    private static func boxes(on y: Double, firstID: Int, wallpaper: ((Double, Double, Double), UInt64, (u: Double, v: Double)) -> Texture)
        -> [Surface]
    {
        var surfaces: [Surface] = []
        // Corner nearest the origin (x, z) and size (width x, height y, depth z), metres.
        for (k, (x, z, w, h, d)) in [(-0.25, -1.35, 0.12, 0.10, 0.08), (0.10, -1.30, 0.07, 0.16, 0.07),
                                     (0.15, -0.95, 0.15, 0.05, 0.10)].enumerated() {
            let base = SIMD3(x, y, z)
            let tint = [(0.9, 0.6, 0.5), (0.5, 0.8, 0.6), (0.7, 0.6, 0.9)][k]
            let faces: [(String, SIMD3<Double>, SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)] = [
                ("top", base + SIMD3(0, h, 0), SIMD3(w, 0, 0), SIMD3(0, 0, d), SIMD3(0, 1, 0)),
                ("front", base + SIMD3(0, 0, d), SIMD3(w, 0, 0), SIMD3(0, h, 0), SIMD3(0, 0, 1)),
                ("back", base, SIMD3(w, 0, 0), SIMD3(0, h, 0), SIMD3(0, 0, -1)),
                ("left", base, SIMD3(0, 0, d), SIMD3(0, h, 0), SIMD3(-1, 0, 0)),
                ("right", base + SIMD3(w, 0, 0), SIMD3(0, 0, d), SIMD3(0, h, 0), SIMD3(1, 0, 0)),
            ]
            for (f, (face, origin, u, v, normal)) in faces.enumerated() {
                let extent = ((u * u).sum().squareRoot(), (v * v).sum().squareRoot())
                surfaces.append(Surface(id: firstID + surfaces.count, name: "box \(k + 1) \(face)", kind: "object", origin: origin,
                                        u: u, v: v, normal: normal, texture: wallpaper(tint, UInt64(20 + 5 * k + f), extent)))
            }
        }
        return surfaces
    }

    /// Debian's opencv-doc images (make setup installs them), or nil when they are not there.
    public static var debianPosterFolder: URL? {
        let folder = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent("graf1.png").path) ? folder : nil
    }

    /// The same room seen along another path: one frame per pose, 1/fps apart from t = 0,
    /// all in the scan segment, without motion blur.
    public func along(_ poses: [RigidTransform]) -> Walkthrough {
        Walkthrough(room: self, frames: poses.enumerated().map { index, pose in
            Frame(index: index, timestamp: Double(index) / framesPerSecond, cameraToWorld: pose, segment: .scan, brightness: 1,
                  exposure: [pose])
        })
    }

    private init(room: Walkthrough, frames: [Frame]) {
        width = room.width
        height = room.height
        intrinsics = room.intrinsics
        framesPerSecond = room.framesPerSecond
        surfaces = room.surfaces
        posters = room.posters
        self.frames = frames
    }

    // MARK: The camera path

    /// A camera at `position` turned by `yaw` (about world up; 0 looks along −z) and `pitch`
    /// (positive looks up), in degrees.
    public static func pose(_ position: SIMD3<Double>, yaw: Double, pitch: Double) -> RigidTransform {
        let (cy, sy) = (cos(yaw * .pi / 180), sin(yaw * .pi / 180))
        let (cp, sp) = (cos(pitch * .pi / 180), sin(pitch * .pi / 180))
        let forward = SIMD3(-sy * cp, sp, -cy * cp)
        let right = SIMD3(cy, 0, -sy)
        // x × y = z for a camera with x right, y down, z forward, so y = z × x.
        let down = SIMD3(forward.y * right.z - forward.z * right.y, forward.z * right.x - forward.x * right.z,
                         forward.x * right.y - forward.y * right.x)
        // Columns are the camera's x (right), y (down) and z (forward) axes in the world.
        return RigidTransform(rotation: [right.x, down.x, forward.x, right.y, down.y, forward.y, right.z, down.z, forward.z],
                              translation: [position.x, position.y, position.z])
    }

    struct Key {
        var position: SIMD3<Double>
        var yaw: Double
        var pitch: Double
        init(_ x: Double, _ y: Double, _ z: Double, yaw: Double, pitch: Double) {
            position = SIMD3(x, y, z)
            self.yaw = yaw
            self.pitch = pitch
        }
    }

    /// A stretch of the path: the camera moves smoothly from `start` to `end`; `gapBefore`
    /// seconds of no frames come first (an interruption).
    struct Leg {
        var segment: Segment
        var seconds: Double
        var start: Key
        var end: Key
        var gapBefore = 0.0
    }

    static let standardPlan: [Leg] = [
        Leg(segment: .scan, seconds: 6, start: Key(-0.6, 1.5, 1.4, yaw: 35, pitch: -18), end: Key(0.6, 1.5, 1.2, yaw: -35, pitch: -18)),
        Leg(segment: .scan, seconds: 3, start: Key(0.6, 1.5, 1.2, yaw: -35, pitch: -18), end: Key(0.4, 1.45, 0.0, yaw: -120, pitch: -22)),
        Leg(segment: .dark, seconds: 1.5, start: Key(0.4, 1.45, 0.0, yaw: -120, pitch: -22), end: Key(0.2, 1.45, 0.2, yaw: -160, pitch: -15)),
        Leg(segment: .fast, seconds: 1, start: Key(0.2, 1.45, 0.2, yaw: -160, pitch: -15), end: Key(0.0, 1.5, 0.4, yaw: -280, pitch: -12)),
        // Starts after a jump in place (no time gap).
        Leg(segment: .textureless, seconds: 1.5, start: Key(1.9, 1.5, -0.3, yaw: -90, pitch: 0), end: Key(2.4, 1.5, -0.3, yaw: -90, pitch: 0)),
        Leg(segment: .returnView, seconds: 3, start: Key(-1.8, 1.35, 0.6, yaw: 40, pitch: -16), end: Key(-1.4, 1.35, 0.2, yaw: 15, pitch: -20),
            gapBefore: 4),
    ]

    /// 36 s: scan north; dark 5–7.5 s; fast turn (peak 240°/s) 11–12.5 s; the plain east wall
    /// filling the view 19–22 s; a 2 s gap after 26 s, then 2 s facing the unmapped south-west
    /// before turning back north, where the map is.
    static let coachingPlan: [Leg] = {
        let north = Key(0, 1.5, 1.0, yaw: 0, pitch: -15)
        return [
            Leg(segment: .scan, seconds: 5, start: Key(-0.6, 1.5, 1.4, yaw: 30, pitch: -15), end: Key(0.2, 1.5, 1.2, yaw: -30, pitch: -15)),
            Leg(segment: .dark, seconds: 2.5, start: Key(0.2, 1.5, 1.2, yaw: -30, pitch: -15), end: Key(0.4, 1.5, 1.1, yaw: -60, pitch: -15)),
            Leg(segment: .scan, seconds: 3.5, start: Key(0.4, 1.5, 1.1, yaw: -60, pitch: -15), end: north),
            Leg(segment: .fast, seconds: 1.5, start: north, end: Key(0, 1.5, 1.0, yaw: 240, pitch: -15)),
            Leg(segment: .scan, seconds: 3.5, start: Key(0, 1.5, 1.0, yaw: 240, pitch: -15), end: Key(0, 1.5, 1.0, yaw: 360, pitch: -15)),
            Leg(segment: .scan, seconds: 3, start: Key(0, 1.5, 1.0, yaw: 360, pitch: -15), end: Key(1.9, 1.5, -0.3, yaw: 270, pitch: 0)),
            Leg(segment: .textureless, seconds: 3, start: Key(1.9, 1.5, -0.3, yaw: 270, pitch: 0), end: Key(2.3, 1.5, 0.3, yaw: 270, pitch: 0)),
            Leg(segment: .scan, seconds: 4, start: Key(2.3, 1.5, 0.3, yaw: 270, pitch: 0), end: Key(0.2, 1.5, 1.0, yaw: 360, pitch: -15)),
            Leg(segment: .afterInterruption, seconds: 2, start: Key(0.3, 1.5, 0.9, yaw: 160, pitch: -15),
                end: Key(0.3, 1.5, 0.9, yaw: 165, pitch: -12), gapBefore: 2),
            Leg(segment: .returnView, seconds: 4, start: Key(0.3, 1.5, 0.9, yaw: 165, pitch: -12), end: Key(0.2, 1.5, 1.0, yaw: 360, pitch: -15)),
            Leg(segment: .scan, seconds: 3, start: Key(0.2, 1.5, 1.0, yaw: 360, pitch: -15), end: Key(-0.3, 1.5, 1.2, yaw: 380, pitch: -15)),
        ]
    }()

    /// One slow circle (20 s) around the table's objects, 0.4–0.5 m out and 0.25–0.35 m above
    /// the table top, looking at the middle of the objects with hand shake.
    private static func circlingFrames(framesPerSecond fps: Double, generator: inout SeededGenerator) -> [Frame] {
        let phases = (0..<6).map { _ in Double.random(in: 0..<(2 * .pi), using: &generator) }
        let target = SIMD3(-0.02, 0.80, -1.15)
        let count = Int((20 * fps).rounded())
        return (0..<count).map { index in
            let t = Double(index) / fps
            let angle = 2 * Double.pi * Double(index) / Double(count)
            let radius = 0.45 + 0.05 * sin(2 * angle + phases[0])
            let height = 0.30 + 0.05 * sin(3 * angle + phases[1])
            let shake = SIMD3(sin(2 * .pi * 0.7 * t + phases[2]), sin(2 * .pi * 1.1 * t + phases[3]), sin(2 * .pi * 0.9 * t + phases[4]))
            let position = target + SIMD3(radius * sin(angle), height, radius * cos(angle)) + 0.002 * shake
            let yaw = angle * 180 / .pi + 0.3 * sin(2 * .pi * 1.3 * t + phases[5])
            let pitch = -atan2(height, radius) * 180 / .pi
            let pose = Self.pose(position, yaw: yaw, pitch: pitch)
            return Frame(index: index, timestamp: t, cameraToWorld: pose, segment: .scan, brightness: 1, exposure: [pose])
        }
    }

    private static func frames(_ plan: [Leg], framesPerSecond fps: Double, generator: inout SeededGenerator) -> [Frame] {
        // Seeded hand shake: sums of slow sines.
        let phases = (0..<12).map { _ in Double.random(in: 0..<(2 * .pi), using: &generator) }
        func shake(_ t: Double, _ k: Int) -> Double {
            sin(2 * .pi * 0.7 * t + phases[k]) * 0.6 + sin(2 * .pi * 1.9 * t + phases[k + 6]) * 0.4
        }
        var frames: [Frame] = []
        var time = 0.0
        var previous: RigidTransform?
        for leg in plan {
            let (segment, start, end) = (leg.segment, leg.start, leg.end)
            time += leg.gapBefore
            let count = Int((leg.seconds * fps).rounded())
            for step in 0..<count {
                let a = Double(step) / Double(max(1, count - 1))
                let s = a * a * (3 - 2 * a)
                let t = time + Double(step) / fps
                let position = start.position + (end.position - start.position) * s
                    + SIMD3(shake(t, 0), shake(t, 1), shake(t, 2)) * 0.004
                let yaw = start.yaw + (end.yaw - start.yaw) * s + shake(t, 3) * 0.4
                let pitch = start.pitch + (end.pitch - start.pitch) * s + shake(t, 4) * 0.4
                let pose = Self.pose(position, yaw: yaw, pitch: pitch)
                // Motion blur: the exposure sweeps from the previous frame's pose to this one, in
                // steps of at most half a degree (4–5 pixels), so the view smears as a real
                // camera's does rather than showing a few sharp ghosts.
                var exposure = [pose]
                if segment == .fast, step > 0, let previous {
                    let shots = max(4, Int((2 * previous.difference(to: pose).rotationDegrees).rounded(.up)))
                    exposure = (1...shots).map { k in Self.interpolate(previous, pose, Double(k) / Double(shots)) }
                }
                frames.append(Frame(
                    index: frames.count, timestamp: t, cameraToWorld: pose,
                    segment: leg.gapBefore > 0 && step == 0 ? .afterInterruption : segment,
                    brightness: segment == .dark ? 0.08 : 1, exposure: exposure))
                previous = pose
            }
            time += leg.seconds
        }
        return frames
    }

    /// Linear in translation and in the rotation matrix, re-orthonormalised: enough for the
    /// small steps inside one exposure.
    static func interpolate(_ a: RigidTransform, _ b: RigidTransform, _ s: Double) -> RigidTransform {
        let r = zip(a.rotation, b.rotation).map { $0 + ($1 - $0) * s }
        var x = SIMD3(r[0], r[3], r[6])
        var z = SIMD3(r[2], r[5], r[8])
        x /= (x * x).sum().squareRoot()
        z -= (z * x).sum() * x
        z /= (z * z).sum().squareRoot()
        let y = SIMD3(z.y * x.z - z.z * x.y, z.z * x.x - z.x * x.z, z.x * x.y - z.y * x.x)
        let t = zip(a.translation, b.translation).map { $0 + ($1 - $0) * s }
        return RigidTransform(rotation: [x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z], translation: t)
    }
}

#if canImport(Glibc)
    import Glibc
#endif
