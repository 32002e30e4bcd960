import Foundation
@_exported import WaymarkSamples

extension Walkthrough {
    /// Debian's opencv-doc images, or nil with a skip message.
    public static func installedPosterFolder() -> URL? {
        guard let folder = debianPosterFolder else {
            print("skipped: the walk-through needs Debian's opencv-doc images (make setup installs them)")
            return nil
        }
        return folder
    }
}
