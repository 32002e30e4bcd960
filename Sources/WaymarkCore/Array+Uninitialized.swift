extension Array {
    /// `Array(unsafeUninitializedCapacity:initializingWith:)`, except that a capacity of 0 gives
    /// the empty array without calling `body`. The standard library's initializer then stores
    /// the count into the one empty-array buffer every empty array shares, which
    /// ThreadSanitizer reports as a race between unrelated threads.
    public init<E: Error>(uninitializedCapacity capacity: Int,
                          initializingWith body: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws(E) -> Void) throws(E)
    {
        if capacity == 0 {
            self = []
        } else {
            try self.init(unsafeUninitializedCapacity: capacity, initializingWith: body)
        }
    }
}
