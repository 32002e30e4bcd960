import Foundation
import Testing
import WaymarkCore

@Suite struct RigidTransformTests {
    /// A rotation drifted from orthonormal (scaled by 1 + 1e-3 and sheared by 1e-3, as products
    /// of thousands of poses drift) comes back to one within 1e-12, within 0.1° of where it was,
    /// with its translation untouched.
    @Test func orthonormalizedRestoresARotation() {
        let angle = 0.7
        let (c, s) = (cos(angle), sin(angle))
        var drifted = RigidTransform(rotation: [c, -s, 0, s, c, 0, 0, 0, 1], translation: [1, 2, 3])
        drifted.rotation = drifted.rotation.map { $0 * 1.001 }
        drifted.rotation[1] += 1e-3
        let fixed = drifted.orthonormalized
        let r = fixed.rotation
        for i in 0..<3 {
            for j in 0..<3 {
                let dot = r[3 * i] * r[3 * j] + r[3 * i + 1] * r[3 * j + 1] + r[3 * i + 2] * r[3 * j + 2]
                #expect(abs(dot - (i == j ? 1 : 0)) < 1e-12, "rows \(i), \(j): \(dot)")
            }
        }
        let determinant = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6])
        #expect(abs(determinant - 1) < 1e-12)
        let truth = RigidTransform(rotation: [c, -s, 0, s, c, 0, 0, 0, 1], translation: [1, 2, 3])
        #expect(fixed.difference(to: truth).rotationDegrees < 0.1)
        #expect(fixed.translation == [1, 2, 3])
    }
}
