/// A model-fitting problem for `ransac`: minimal samples, a fit, an inlier test, and a
/// least-squares refit. Indices refer to the problem's own data.
public protocol RansacProblem {
    associatedtype Model

    /// Data items a minimal sample holds.
    var sampleSize: Int { get }
    /// A model from a minimal sample, or nil when the sample is degenerate.
    func model(fromSample sample: [Int]) -> Model?
    func isInlier(_ index: Int, of model: Model) -> Bool
    /// How much an inlier counts; 1 unless items stand for many measurements.
    func weight(of index: Int) -> Double
    /// The least-squares model over `inliers`, or nil when they are degenerate.
    func refit(inliers: [Int]) -> Model?
}

extension RansacProblem {
    @inlinable
    public func weight(of index: Int) -> Double { 1 }
}

public struct RansacOptions: Sendable, Equatable {
    /// Probability that at least one sample is all inliers when the search stops.
    public var confidence = 0.999
    public var maximumIterations = 1000
    /// Rounds of refit-then-re-score after the search (local optimisation).
    public var refinementRounds = 3
    /// When positive, a hypothesis is first scored on this many random items, and scored in
    /// full only if its inlier share there is at least half the best share so far (a
    /// preemptive test in the spirit of Matas and Chum's T(d,d)). 0 scores every hypothesis fully.
    public var screening = 0
    public var seed: UInt64 = 1

    public init(
        confidence: Double = 0.999, maximumIterations: Int = 1000, refinementRounds: Int = 3, screening: Int = 0,
        seed: UInt64 = 1
    ) {
        precondition(confidence > 0 && confidence < 1, "confidence lies strictly between 0 and 1")
        precondition(maximumIterations > 0 && refinementRounds >= 0 && screening >= 0, "iterations must be positive")
        self.confidence = confidence
        self.maximumIterations = maximumIterations
        self.refinementRounds = refinementRounds
        self.screening = screening
        self.seed = seed
    }
}

public struct RansacReport<Model> {
    public var model: Model
    /// Inlier indices among the candidates, ascending.
    public var inliers: [Int]
    /// Sum of the inliers' weights.
    public var score: Double
    public var iterations: Int

    @inlinable
    public init(model: Model, inliers: [Int], score: Double, iterations: Int) {
        self.model = model
        self.inliers = inliers
        self.score = score
        self.iterations = iterations
    }
}

/// Seeded RANSAC over `candidates` (default: all `count` items) with an adaptive stopping
/// rule, then `refinementRounds` least-squares refits on the inliers. Nil when no sample
/// gives a model.
@inlinable
public func ransac<Problem: RansacProblem>(
    _ problem: Problem, count: Int, candidates: [Int]? = nil, options: RansacOptions = RansacOptions()
) -> RansacReport<Problem.Model>? {
    let pool = candidates ?? Array(0..<count)
    let sampleSize = problem.sampleSize
    guard pool.count >= sampleSize, sampleSize > 0 else { return nil }
    var totalWeight = 0.0
    for index in pool { totalWeight += problem.weight(of: index) }
    guard totalWeight > 0 else { return nil }

    /// The model's score, or a lower bound once it can no longer beat `rival`.
    func score(_ model: Problem.Model, toBeat rival: Double) -> Double {
        var sum = 0.0
        var unseen = totalWeight
        for index in pool {
            let weight = problem.weight(of: index)
            unseen -= weight
            if problem.isInlier(index, of: model) { sum += weight } else if sum + unseen <= rival { return sum }
        }
        return sum
    }

    var generator = SeededGenerator(seed: options.seed)
    let screen = options.screening > 0 && pool.count >= 4 * options.screening
        ? (0..<options.screening).map { _ in pool[Int.random(in: 0..<pool.count, using: &generator)] } : []
    var screenWeight = 0.0
    for index in screen { screenWeight += problem.weight(of: index) }
    func passesScreen(_ model: Problem.Model, best: Double) -> Bool {
        guard !screen.isEmpty, best > 0, screenWeight > 0 else { return true }
        var sum = 0.0
        for index in screen where problem.isInlier(index, of: model) { sum += problem.weight(of: index) }
        return sum / screenWeight >= 0.5 * best / totalWeight
    }
    var best: (model: Problem.Model, score: Double)?
    var sample = [Int](repeating: 0, count: sampleSize)
    var iterations = 0
    var required = options.maximumIterations
    while iterations < required {
        iterations += 1
        for slot in 0..<sampleSize {
            var pick: Int
            repeat { pick = pool[Int.random(in: 0..<pool.count, using: &generator)] } while sample[0..<slot].contains(pick)
            sample[slot] = pick
        }
        guard let model = problem.model(fromSample: sample), passesScreen(model, best: best?.score ?? 0) else { continue }
        let candidateScore = score(model, toBeat: best?.score ?? 0)
        if candidateScore > (best?.score ?? 0) {
            best = (model, candidateScore)
            required = min(required, requiredIterations(inlierShare: candidateScore / totalWeight,
                                                        sampleSize: sampleSize, confidence: options.confidence))
        }
    }
    guard var (model, bestScore) = best else { return nil }
    var inliers = pool.filter { problem.isInlier($0, of: model) }
    for _ in 0..<options.refinementRounds {
        guard let refined = problem.refit(inliers: inliers) else { break }
        let refinedInliers = pool.filter { problem.isInlier($0, of: refined) }
        var refinedScore = 0.0
        for index in refinedInliers { refinedScore += problem.weight(of: index) }
        guard refinedScore >= bestScore else { break }
        let converged = refinedInliers == inliers
        (model, bestScore, inliers) = (refined, refinedScore, refinedInliers)
        if converged { break }
    }
    return RansacReport(model: model, inliers: inliers, score: bestScore, iterations: iterations)
}

/// Samples needed so that one is all inliers with probability `confidence`.
@inlinable
public func requiredIterations(inlierShare: Double, sampleSize: Int, confidence: Double) -> Int {
    let allInliers = pow(min(max(inlierShare, 1e-9), 1), Double(sampleSize))
    if allInliers >= 1 { return 1 }
    let iterations = log(1 - confidence) / log(1 - allInliers)
    return iterations.isFinite ? max(1, Int(iterations.rounded(.up))) : Int.max
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
