extension WorldAnchor {
    /// A world plane anchor: x and z along the surface's rectangle, y its normal (flipped z if
    /// needed so the frame is right-handed).
    init(plane anchor: PlaneAnchor) {
        let s = anchor.surface
        let y = s.plane.normal
        let (x, z) = (s.axisU, s.axisV)
        let handed = (x.y * y.z - x.z * y.y) * z.x + (x.z * y.x - x.x * y.z) * z.y + (x.x * y.y - x.y * y.x) * z.z
        let zz = handed < 0 ? -z : z
        self.init(id: anchor.id, kind: .plane, name: s.classification.rawValue,
                  transform: RigidTransform(rotation: [x.x, y.x, zz.x, x.y, y.y, zz.y, x.z, y.z, zz.z],
                                            translation: [s.center.x, s.center.y, s.center.z]),
                  extent: s.extent)
    }

    /// A named anchor where an object was placed: y along its surface's normal, x as close to
    /// the world's x as that allows (so it keeps its heading while the surface grows); the
    /// world's axes when it rests on no established surface.
    init(named object: PlacedObject, id: Int, on anchor: PlaneAnchor?) {
        let p = object.position
        var rotation = RigidTransform.identity.rotation
        if let y = anchor?.surface.plane.normal {
            var x = SIMD3<Double>(1, 0, 0) - y.x * y
            if (x * x).sum() < 1e-6 { x = SIMD3(0, 0, 1) - y.z * y }
            x /= (x * x).sum().squareRoot()
            let z = SIMD3(x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x)
            rotation = [x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z]
        }
        self.init(id: id, kind: .named, name: object.name, transform: RigidTransform(rotation: rotation, translation: [p.x, p.y, p.z]))
    }
}
