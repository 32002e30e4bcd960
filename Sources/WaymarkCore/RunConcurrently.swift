import Dispatch

/// Runs `first` and `second` at the same time (one on a pool thread) and returns both results.
/// The two must not touch the same mutable state: the compiler cannot check that here, the
/// caller promises it (e.g. image detection beside camera tracking, on separate objects).
public func runConcurrently<A, B>(_ first: () -> A, _ second: () -> B) -> (A, B) {
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            let work = UncheckedSendable((first, second))
            let results = ResultPair<A, B>()
            DispatchQueue.concurrentPerform(iterations: 2) { task in
                if task == 0 { results.first = work.value.0() } else { results.second = work.value.1() }
            }
            return (results.first!, results.second!)
        }
    }
}

private struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Each slot is written by one task and read after both have finished.
private final class ResultPair<A, B>: @unchecked Sendable {
    var first: A?
    var second: B?
}
