import FuzzSupport
import Waymark

/// An image file as depth (PFM, 16-bit PNG, TIFF, ...) and as a colour frame: the header check
/// against the pixel limit, then the decode.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = ScratchFiles.write(ScratchFiles.bytes(data, size), as: "image")
    if let depth = try? DepthImage(contentsOf: path, scale: nil, limits: fuzzLimits) {
        precondition(depth.width * depth.height <= fuzzLimits.maxPixels, "a depth image over the pixel limit loaded")
        precondition(depth.metres.count == depth.width * depth.height, "a depth image's size does not match its values")
    }
    if let image = try? Image(contentsOf: path, gray: false, limits: fuzzLimits) {
        precondition(image.width * image.height <= fuzzLimits.maxPixels, "an image over the pixel limit loaded")
    }
    return 0
}
