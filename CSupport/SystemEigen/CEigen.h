/* Carries Eigen's include path (pkg-config eigen3) to CSupport.
   Nothing in Swift imports this module; only CSupport's C++ includes Eigen. */
