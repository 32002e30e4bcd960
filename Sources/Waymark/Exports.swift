@_exported import WaymarkCore
@_exported import WaymarkImages
@_exported import WaymarkVision
