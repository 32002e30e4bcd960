@_exported import WaymarkCore
@_exported import WaymarkImages
@_exported import WaymarkVision
@_exported import WaymarkPlanes
