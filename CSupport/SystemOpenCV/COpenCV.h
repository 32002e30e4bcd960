/* Carries OpenCV's compiler and linker flags (pkg-config waymark-opencv) to CSupport.
   Nothing in Swift imports this module; only CSupport's C++ includes OpenCV. */
