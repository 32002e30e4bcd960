#!/usr/bin/env python3
"""Writes a TUM-layout RGB-D folder as a ROS 2 bag, as `ros2 bag record` would have, with the
pure-Python rosbags package (pinned in Datasets/requirements-bags.txt; `make bag-setup` makes
its virtual environment, which also sees Debian's python3-opencv).

    write-ros-bag.py SOURCE BAG [--storage mcap|sqlite3] [--chunks zstd|lz4|none]
                     [--intrinsics fx,fy,cx,cy] [--distortion k1,k2,p1,p2,k3] [--truncate BYTES]
                     [--color-encoding rgb8|bgr8|mono8] [--depth-encoding 16UC1|32FC1|none]
                     [--compressed-format png|jpeg]

Topics, one message per line of the folder's lists, each stamped (header and log time) with
its line's timestamp, read as a decimal string so that no nanosecond is lost:
  /camera/color/image_raw             sensor_msgs/msg/Image, rgb8 (rgb.txt's PNGs, decoded; or bgr8, or
                                      mono8 as OpenCV makes it gray)
  /camera/color/image_raw/compressed  sensor_msgs/msg/CompressedImage, the same PNG files' bytes (or
                                      the images as JPEG, quality 95)
  /camera/depth/image_raw             sensor_msgs/msg/Image, 16UC1 (depth.txt's PNGs, 5000 per metre; or
                                      32FC1 in metres; none leaves depth out)
  /camera/color/camera_info           sensor_msgs/msg/CameraInfo, once per colour frame
  /imu                                sensor_msgs/msg/Imu, linear acceleration (accelerometer.txt), frame "imu"
  /tf_static                          tf2_msgs/msg/TFMessage, once: camera -> imu, the Kinect accelerometer's
                                      axes (x left, y up, z forward) in the camera's, a half turn about z
  /camera/pose                        geometry_msgs/msg/PoseStamped (groundtruth.txt), frame "world"
  /tf                                 tf2_msgs/msg/TFMessage, world -> camera, the same poses

MCAP chunks are zstd-compressed by rosbags; --chunks lz4 recompresses each chunk as an LZ4 frame
(MCAP's "lz4"), --chunks none stores them as they are. --truncate cuts the storage file after
that many bytes and removes metadata.yaml, as a recording killed mid-write leaves the bag (the
recorder writes metadata.yaml when it stops).
"""
import argparse
import struct
import sys
from pathlib import Path

import cv2
import lz4.frame
import numpy as np
from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

try:
    from compression import zstd
except ImportError:
    from backports import zstd


def entries(folder, name):
    """(stamp string, fields) per line of a TUM list, comments skipped; none when it is absent."""
    path = folder / name
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith('#'):
            fields = line.split()
            rows.append((fields[0], fields[1:]))
    return rows


def nanoseconds(stamp):
    """A decimal seconds string as whole nanoseconds, exactly."""
    whole, _, fraction = stamp.partition('.')
    return int(whole) * 1_000_000_000 + int((fraction + '000000000')[:9])


def read_intrinsics(folder, given):
    if given:
        return [float(x) for x in given.split(',')]
    path = folder / 'intrinsics.txt'
    if path.exists():
        return [float(x) for x in path.read_text().split()[:4]]
    sys.exit('write-ros-bag: no intrinsics.txt in the folder; give --intrinsics fx,fy,cx,cy')


def write(source, bag, storage, chunks, intrinsics, distortion=(0, 0, 0, 0, 0), color_encoding='rgb8',
          depth_encoding='16UC1', compressed_format='png'):
    store = get_typestore(Stores.ROS2_HUMBLE)
    T = store.types
    Time = T['builtin_interfaces/msg/Time']
    Header = T['std_msgs/msg/Header']

    def header(stamp, frame):
        ns = nanoseconds(stamp)
        return Header(stamp=Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000), frame_id=frame)

    messages = []  # (log time ns, topic, message)
    fx, fy, cx, cy = intrinsics
    for stamp, (name,) in entries(source, 'rgb.txt'):
        file = source / name
        bgr = cv2.imread(str(file), cv2.IMREAD_COLOR)
        pixels = {'rgb8': lambda: cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), 'bgr8': lambda: bgr,
                  'mono8': lambda: cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)}[color_encoding]()
        h, w = bgr.shape[:2]
        messages.append((nanoseconds(stamp), '/camera/color/image_raw', T['sensor_msgs/msg/Image'](
            header=header(stamp, 'camera'), height=h, width=w, encoding=color_encoding, is_bigendian=0,
            step=pixels.strides[0], data=np.ascontiguousarray(pixels).reshape(-1))))
        encoded = file.read_bytes() if compressed_format == 'png' else \
            cv2.imencode('.jpg', bgr, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
        messages.append((nanoseconds(stamp), '/camera/color/image_raw/compressed', T['sensor_msgs/msg/CompressedImage'](
            header=header(stamp, 'camera'), format=compressed_format, data=np.frombuffer(encoded, dtype=np.uint8))))
        messages.append((nanoseconds(stamp), '/camera/color/camera_info', T['sensor_msgs/msg/CameraInfo'](
            header=header(stamp, 'camera'), height=h, width=w, distortion_model='plumb_bob',
            d=np.array(distortion, dtype=float), k=np.array([fx, 0, cx, 0, fy, cy, 0, 0, 1.0]), r=np.eye(3).reshape(-1),
            p=np.array([fx, 0, cx, 0, 0, fy, cy, 0, 0, 0, 1.0, 0]), binning_x=0, binning_y=0,
            roi=T['sensor_msgs/msg/RegionOfInterest'](x_offset=0, y_offset=0, height=0, width=0, do_rectify=False))))
    for stamp, (name,) in entries(source, 'depth.txt') if depth_encoding != 'none' else []:
        depth = cv2.imread(str(source / name), cv2.IMREAD_UNCHANGED)
        assert depth.dtype == np.uint16, f'{name} is not 16-bit'
        h, w = depth.shape
        values = depth.astype('<u2') if depth_encoding == '16UC1' else (depth / 5000.0).astype('<f4')
        messages.append((nanoseconds(stamp), '/camera/depth/image_raw', T['sensor_msgs/msg/Image'](
            header=header(stamp, 'camera'), height=h, width=w, encoding=depth_encoding, is_bigendian=0,
            step=values.strides[0], data=values.view(np.uint8).reshape(-1))))
    Vector3 = T['geometry_msgs/msg/Vector3']
    Quaternion = T['geometry_msgs/msg/Quaternion']
    unknown = np.zeros(9)
    unknown[0] = -1  # ROS: a covariance whose first element is -1 says the field is not measured
    for stamp, values in entries(source, 'accelerometer.txt'):
        ax, ay, az = (float(v) for v in values[:3])
        messages.append((nanoseconds(stamp), '/imu', T['sensor_msgs/msg/Imu'](
            header=header(stamp, 'imu'), orientation=Quaternion(x=0, y=0, z=0, w=1), orientation_covariance=unknown,
            angular_velocity=Vector3(x=0, y=0, z=0), angular_velocity_covariance=unknown,
            linear_acceleration=Vector3(x=ax, y=ay, z=az), linear_acceleration_covariance=np.zeros(9))))
    accelerometer = entries(source, 'accelerometer.txt')
    if accelerometer:
        stamp = accelerometer[0][0]
        half_turn = T['geometry_msgs/msg/TransformStamped'](
            header=header(stamp, 'camera'), child_frame_id='imu',
            transform=T['geometry_msgs/msg/Transform'](translation=Vector3(x=0, y=0, z=0),
                                                       rotation=Quaternion(x=0, y=0, z=1, w=0)))
        messages.append((nanoseconds(stamp), '/tf_static', T['tf2_msgs/msg/TFMessage'](transforms=[half_turn])))
    for stamp, values in entries(source, 'groundtruth.txt'):
        tx, ty, tz, qx, qy, qz, qw = (float(v) for v in values[:7])
        pose = T['geometry_msgs/msg/Pose'](position=T['geometry_msgs/msg/Point'](x=tx, y=ty, z=tz),
                                           orientation=Quaternion(x=qx, y=qy, z=qz, w=qw))
        messages.append((nanoseconds(stamp), '/camera/pose', T['geometry_msgs/msg/PoseStamped'](
            header=header(stamp, 'world'), pose=pose)))
        transform = T['geometry_msgs/msg/TransformStamped'](
            header=header(stamp, 'world'), child_frame_id='camera',
            transform=T['geometry_msgs/msg/Transform'](translation=Vector3(x=tx, y=ty, z=tz), rotation=pose.orientation))
        messages.append((nanoseconds(stamp), '/tf', T['tf2_msgs/msg/TFMessage'](transforms=[transform])))

    types = {
        '/camera/color/image_raw': 'sensor_msgs/msg/Image',
        '/camera/color/image_raw/compressed': 'sensor_msgs/msg/CompressedImage',
        '/camera/depth/image_raw': 'sensor_msgs/msg/Image',
        '/camera/color/camera_info': 'sensor_msgs/msg/CameraInfo',
        '/imu': 'sensor_msgs/msg/Imu',
        '/camera/pose': 'geometry_msgs/msg/PoseStamped',
        '/tf': 'tf2_msgs/msg/TFMessage',
        '/tf_static': 'tf2_msgs/msg/TFMessage',
    }
    plugin = StoragePlugin.MCAP if storage == 'mcap' else StoragePlugin.SQLITE3
    writer = Writer(bag, version=9, storage_plugin=plugin)
    if storage == 'mcap' and chunks != 'none':
        writer.set_compression(CompressionMode.STORAGE, CompressionFormat.ZSTD)
    present = {topic for _, topic, _ in messages}
    with writer:
        connections = {topic: writer.add_connection(topic, kind, typestore=store)
                       for topic, kind in types.items() if topic in present}
        for ns, topic, message in sorted(messages, key=lambda m: m[0]):
            writer.write(connections[topic], ns, store.serialize_cdr(message, types[topic]))
    if storage == 'mcap' and chunks == 'lz4':
        recompress_chunks_as_lz4(next(bag.glob('*.mcap')))


def recompress_chunks_as_lz4(path):
    """Rewrites every zstd chunk of an MCAP file as an LZ4-frame chunk. The summary's offsets
    are then stale, so the summary section is dropped (a reader that scans records needs none);
    the footer points nowhere (summary_start 0), as a writer that kept no summary leaves it."""
    data = path.read_bytes()
    magic = b'\x89MCAP0\r\n'
    assert data[:8] == magic and data[-8:] == magic
    out = bytearray(magic)
    at = 8
    while at < len(data) - 8:
        opcode = data[at]
        (length,) = struct.unpack_from('<Q', data, at + 1)
        body = data[at + 9:at + 9 + length]
        if opcode == 0x06:  # chunk
            start, end, size, crc = struct.unpack_from('<QQQI', body, 0)
            (clen,) = struct.unpack_from('<I', body, 28)
            compression = body[32:32 + clen].decode()
            (records_len,) = struct.unpack_from('<Q', body, 32 + clen)
            records = body[40 + clen:40 + clen + records_len]
            if compression == 'zstd':
                records = zstd.decompress(records)
            packed = lz4.frame.compress(records)
            body = (struct.pack('<QQQI', start, end, size, crc) + struct.pack('<I', 3) + b'lz4' +
                    struct.pack('<Q', len(packed)) + packed)
        elif opcode == 0x0F:  # data end: the summary after it would point at old offsets
            out += bytes([opcode]) + struct.pack('<Q', length) + body
            break
        elif opcode in (0x07, 0x08):  # message and chunk indexes, stale once chunks move
            at += 9 + length
            continue
        out += bytes([opcode]) + struct.pack('<Q', len(body)) + body
        at += 9 + length
    out += bytes([0x02]) + struct.pack('<Q', 20) + struct.pack('<QQI', 0, 0, 0)  # footer
    out += magic
    path.write_bytes(bytes(out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('source', type=Path)
    parser.add_argument('bag', type=Path)
    parser.add_argument('--storage', choices=['mcap', 'sqlite3'], default='mcap')
    parser.add_argument('--chunks', choices=['zstd', 'lz4', 'none'], default='zstd')
    parser.add_argument('--intrinsics')
    parser.add_argument('--distortion', default='0,0,0,0,0')
    parser.add_argument('--color-encoding', choices=['rgb8', 'bgr8', 'mono8'], default='rgb8')
    parser.add_argument('--depth-encoding', choices=['16UC1', '32FC1', 'none'], default='16UC1')
    parser.add_argument('--compressed-format', choices=['png', 'jpeg'], default='png')
    parser.add_argument('--truncate', type=int)
    args = parser.parse_args()
    write(args.source, args.bag, args.storage, args.chunks, read_intrinsics(args.source, args.intrinsics),
          [float(x) for x in args.distortion.split(',')], args.color_encoding, args.depth_encoding, args.compressed_format)
    if args.truncate is not None:
        storage_file = next(p for p in args.bag.iterdir() if p.suffix in ('.mcap', '.db3'))
        with storage_file.open('r+b') as f:
            f.truncate(args.truncate)
        (args.bag / 'metadata.yaml').unlink()


if __name__ == '__main__':
    main()
