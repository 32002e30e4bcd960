import CSupport

/// How many threads OpenCV's parallel loops (features, odometry, PnP) use, process-wide;
/// nil restores its default of one per core. Waymark's own Swift code runs on the caller's thread.
public func setOpenCVThreadCount(_ count: Int?) {
    precondition(count.map { $0 > 0 } ?? true, "a thread count is positive")
    checkInvariant { cs_set_thread_count(Int32(count ?? 0), $0) }
}
