import Waymark

extension Homography {
    /// Whether a `width`×`height` image mapped by this homography lies wholly inside a
    /// `frameWidth`×`frameHeight` frame.
    public func keepsImage(width: Int, height: Int, insideFrame frameWidth: Int, _ frameHeight: Int) -> Bool {
        imageCorners(width: width, height: height).allSatisfy { corner in
            guard let p = apply(corner) else { return false }
            return p.x >= 0 && p.y >= 0 && p.x <= Double(frameWidth) && p.y <= Double(frameHeight)
        }
    }
}
