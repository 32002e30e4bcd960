import Waymark

/// Hand-written parsing: `--name value`, `--name=value`, flags, repeatable options, positionals.
struct Arguments {
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// `valueOptions` take a value; `flagOptions` do not. Anything else starting with "--" is an error.
    init(_ tokens: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws(WaymarkError) {
        var i = 0
        var onlyPositionals = false
        while i < tokens.count {
            let token = tokens[i]
            i += 1
            if onlyPositionals || !token.hasPrefix("-") || token == "-" {
                positionals.append(token)
                continue
            }
            if token == "--" {
                onlyPositionals = true
                continue
            }
            var name = token
            var inlineValue: String?
            if let eq = token.firstIndex(of: "=") {
                name = String(token[..<eq])
                inlineValue = String(token[token.index(after: eq)...])
            }
            if name == "-h" { name = "--help" }
            if flagOptions.contains(name) {
                guard inlineValue == nil else { throw WaymarkError(.usage, "\(name) takes no value") }
                flags.insert(name)
            } else if valueOptions.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < tokens.count else { throw WaymarkError(.usage, "\(name) needs a value") }
                    value = tokens[i]
                    i += 1
                }
                options[name, default: []].append(value)
            } else {
                throw WaymarkError(.usage, "unknown option \(name); see --help")
            }
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Whether the option was given, as a flag or with a value.
    func has(_ name: String) -> Bool { flags.contains(name) || options[name] != nil }

    /// The single value of an option; giving it twice is an error.
    func value(_ name: String) throws(WaymarkError) -> String? {
        guard let values = options[name] else { return nil }
        guard values.count == 1 else { throw WaymarkError(.usage, "\(name) is given more than once") }
        return values[0]
    }

    func values(_ name: String) -> [String] { options[name] ?? [] }

    func required(_ name: String) throws(WaymarkError) -> String {
        guard let value = try value(name) else { throw WaymarkError(.usage, "\(name) is required; see --help") }
        return value
    }

    func intrinsics() throws(WaymarkError) -> Intrinsics? {
        try value("--intrinsics").map { (text: String) throws(WaymarkError) in try Intrinsics(parsing: text) }
    }

    /// --calibration FILE: an OpenCV calibration (YAML, XML or JSON).
    func calibration() throws(WaymarkError) -> CameraCalibration? {
        try value("--calibration").map { (path: String) throws(WaymarkError) in try CameraCalibration(contentsOf: path) }
    }

    /// --fov DEGREES: the horizontal field of view of an uncalibrated camera.
    func fieldOfView() throws(WaymarkError) -> Double? {
        try value("--fov").map { (text: String) throws(WaymarkError) -> Double in
            guard let degrees = Double(text), degrees >= 10, degrees <= 170 else {
                throw WaymarkError(.usage, "--fov must be the horizontal field of view in degrees, 10 to 170; got '\(text)'")
            }
            return degrees
        }
    }
}

extension Arguments {
    /// --depth-scale: metres per depth unit.
    func depthScale() throws(WaymarkError) -> Double? {
        try value("--depth-scale").map { (text: String) throws(WaymarkError) -> Double in
            guard let value = Double(text), value > 0, value.isFinite else {
                throw WaymarkError(.usage, "--depth-scale must be a positive number of metres per unit; got '\(text)'")
            }
            return value
        }
    }

    /// --fps (for image folders and plain-folder sequences, 30 by default), at most `maximum`.
    func framesPerSecond(default fallback: Double = 30, maximum: Double = 1000) throws(WaymarkError) -> Double {
        try value("--fps").map { (text: String) throws(WaymarkError) -> Double in
            guard let value = Double(text), value > 0, value <= maximum else {
                throw WaymarkError(.usage, "--fps must be a number of frames per second above 0 and at most \(Int(maximum)); got '\(text)'")
            }
            return value
        } ?? fallback
    }
}

extension Arguments {
    /// --language and --goal.
    func coaching(defaultGoal: CoachingGoal) throws(WaymarkError) -> CoachingOptions {
        var options = CoachingOptions(goal: defaultGoal, language: .english)
        if let text = try value("--language") {
            guard let language = CoachingLanguage(rawValue: text) else {
                throw WaymarkError(.usage, "--language must be one of \(CoachingLanguage.allCases.map(\.rawValue).joined(separator: ", ")); got '\(text)'")
            }
            options.language = language
        }
        if let text = try value("--goal") {
            guard let goal = CoachingGoal(rawValue: text) else {
                throw WaymarkError(.usage, "--goal must be one of \(CoachingGoal.allCases.map(\.rawValue).joined(separator: ", ")); got '\(text)'")
            }
            options.goal = goal
        }
        return options
    }
}

extension Arguments {
    static let limitHelp = """
          --max-megapixels N  refuse an input image or frame over N megapixels, from its header,
                              before decoding it (default 100)
        """

    /// --max-megapixels and --max-points: how large an input may be.
    func limits() throws(WaymarkError) -> InputLimits {
        var limits = InputLimits.standard
        if let text = try value("--max-megapixels") {
            guard let megapixels = Double(text), megapixels > 0, megapixels <= 10_000 else {
                throw WaymarkError(.usage, "--max-megapixels must be a number above 0 and at most 10000; got '\(text)'")
            }
            limits.maxPixels = Int(megapixels * 1e6)
        }
        if let text = try value("--max-points") {
            guard let points = Int(text), points > 0 else {
                throw WaymarkError(.usage, "--max-points must be a whole number above 0; got '\(text)'")
            }
            limits.maxPoints = points
        }
        return limits
    }
}
