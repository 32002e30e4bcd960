@_exported import WaymarkCore
@_exported import WaymarkImages
@_exported import WaymarkVision
@_exported import WaymarkPlanes
@_exported import WaymarkRelocalization
@_exported import WaymarkGuidance
@_exported import WaymarkInput
@_exported import WaymarkBags
