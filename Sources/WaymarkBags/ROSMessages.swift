import WaymarkCore

/// The ROS 2 messages Waymark reads from bags, decoded from CDR. Stamps are the headers',
/// nanoseconds since the epoch.

/// sensor_msgs/msg/Image.
public struct ROSImage: Sendable {
    public var stamp: Int64
    public var frame: String
    public var width: Int
    public var height: Int
    /// rgb8, bgr8, mono8, 16UC1, 32FC1, …
    public var encoding: String
    public var isBigEndian: Bool
    /// Bytes per row.
    public var step: Int
    public var data: [UInt8]

    /// `readingData` false leaves `data` empty: the image's description alone, without a copy of its pixels.
    public init(_ message: BagMessage, readingData: Bool = true) throws(WaymarkError) {
        var cdr = try CDRReader(message)
        (stamp, frame) = try cdr.header()
        height = Int(try cdr.read(UInt32.self))
        width = Int(try cdr.read(UInt32.self))
        encoding = try cdr.string()
        isBigEndian = try cdr.read(UInt8.self) != 0
        step = Int(try cdr.read(UInt32.self))
        data = readingData ? try cdr.byteSequence() : []
    }
}

/// sensor_msgs/msg/CompressedImage: `data` is a whole JPEG or PNG file.
public struct ROSCompressedImage: Sendable {
    public var stamp: Int64
    public var frame: String
    /// "jpeg", "png", or image_transport's longer forms ("rgb8; jpeg compressed bgr8").
    public var format: String
    public var data: [UInt8]

    /// `head` takes what there is of `data` (a message read head only: the file's first bytes).
    public init(_ message: BagMessage, head: Bool = false) throws(WaymarkError) {
        var cdr = try CDRReader(message)
        (stamp, frame) = try cdr.header()
        format = try cdr.string()
        data = head ? try cdr.byteSequenceHead() : try cdr.byteSequence()
    }
}

/// sensor_msgs/msg/CameraInfo: the image's size, its lens model and distortion, and the
/// intrinsic matrix K (row-major 3×3).
public struct ROSCameraInfo: Sendable {
    public var stamp: Int64
    public var frame: String
    public var width: Int
    public var height: Int
    /// plumb_bob, rational_polynomial, equidistant, …
    public var distortionModel: String
    public var distortion: [Double]
    public var k: [Double]

    public init(_ message: BagMessage) throws(WaymarkError) {
        var cdr = try CDRReader(message)
        (stamp, frame) = try cdr.header()
        height = Int(try cdr.read(UInt32.self))
        width = Int(try cdr.read(UInt32.self))
        distortionModel = try cdr.string()
        distortion = try cdr.float64s(try cdr.count(elementSize: 8))
        k = try cdr.float64s(9)
    }
}

/// sensor_msgs/msg/Imu: its linear acceleration, m/s², in its frame (the specific force: at
/// rest it points up).
public struct ROSImu: Sendable {
    public var stamp: Int64
    public var frame: String
    public var linearAcceleration: SIMD3<Double>

    public init(_ message: BagMessage) throws(WaymarkError) {
        var cdr = try CDRReader(message)
        (stamp, frame) = try cdr.header()
        _ = try cdr.quaternion()  // orientation
        _ = try cdr.float64s(9)
        _ = try cdr.vector3()  // angular velocity
        _ = try cdr.float64s(9)
        linearAcceleration = try cdr.vector3()
    }
}

/// A stamped rigid transform: the pose of `child` in `parent` (geometry_msgs/msg/PoseStamped,
/// whose child is the message's subject, or one of tf2_msgs/msg/TFMessage's transforms).
public struct ROSTransform: Sendable {
    public var stamp: Int64
    public var parent: String
    /// Empty for a PoseStamped.
    public var child: String
    public var translation: SIMD3<Double>
    /// (x, y, z, w).
    public var rotation: SIMD4<Double>

    /// A geometry_msgs/msg/PoseStamped.
    public init(poseStamped message: BagMessage) throws(WaymarkError) {
        var cdr = try CDRReader(message)
        (stamp, parent) = try cdr.header()
        child = ""
        translation = try cdr.vector3()
        rotation = try cdr.quaternion()
    }

    init(stamp: Int64, parent: String, child: String, translation: SIMD3<Double>, rotation: SIMD4<Double>) {
        (self.stamp, self.parent, self.child, self.translation, self.rotation) = (stamp, parent, child, translation, rotation)
    }

    /// A tf2_msgs/msg/TFMessage's transforms.
    public static func transforms(in message: BagMessage) throws(WaymarkError) -> [ROSTransform] {
        var cdr = try CDRReader(message)
        // Each TransformStamped is at least a header (12 bytes) and seven doubles.
        let count = try cdr.count(elementSize: 68)
        var transforms: [ROSTransform] = []
        for _ in 0..<count {
            let (stamp, parent) = try cdr.header()
            let child = try cdr.string()
            transforms.append(ROSTransform(stamp: stamp, parent: parent, child: child, translation: try cdr.vector3(),
                                           rotation: try cdr.quaternion()))
        }
        return transforms
    }
}
