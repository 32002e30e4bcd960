import WaymarkCore
import WaymarkVision

/// One frame of an input, as its source read it.
public struct InputFrame {
    /// The frame's position in its source, from 0.
    public var index: Int
    /// Seconds: from the recording's clock, or from the first frame where the input has none.
    public var timestamp: Double
    /// BGR; nil when the source has no colour or was asked for gray only.
    public var color: Image?
    /// One channel; nil when the frame has `color` (`image` derives it) or no picture at all.
    public var gray: Image?
    /// In metres, scaled as the source's `depthScale` says.
    public var depth: DepthImage?
    /// A pose recorded with the frame (motion capture, a robot's odometry), camera-to-world.
    public var recordedPose: RigidTransform?
    /// The direction of gravity in the camera's coordinates (unit length), from an IMU.
    public var gravity: SIMD3<Double>?
    public var intrinsics: Intrinsics?
    /// Why this frame could not be read; the source goes on with the next one.
    public var error: WaymarkError?

    public init(index: Int, timestamp: Double, color: Image? = nil, gray: Image? = nil, depth: DepthImage? = nil,
                recordedPose: RigidTransform? = nil, gravity: SIMD3<Double>? = nil, intrinsics: Intrinsics? = nil,
                error: WaymarkError? = nil)
    {
        self.index = index
        self.timestamp = timestamp
        self.color = color
        self.gray = gray
        self.depth = depth
        self.recordedPose = recordedPose
        self.gravity = gravity
        self.intrinsics = intrinsics
        self.error = error
    }

    /// A frame that could not be read.
    public static func failed(index: Int, timestamp: Double, _ error: WaymarkError) -> InputFrame {
        InputFrame(index: index, timestamp: timestamp, error: error)
    }

    /// The picture: colour when there is one, else gray.
    public var image: Image? { color ?? gray }
}
