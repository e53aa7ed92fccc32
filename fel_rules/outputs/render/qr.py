"""The verifier QR as vector squares (crisp at any zoom, no raster image in the PDF)."""

from __future__ import annotations

import qrcode
from qrcode.constants import ERROR_CORRECT_M
from reportlab.platypus import Flowable

__all__ = ["QRCodeFlowable", "qr_matrix"]


def qr_matrix(data: str) -> list[list[bool]]:
    """Module matrix of ``data`` (error correction M, quiet zone of 4 modules included)."""
    # A fixed mask skips trying all eight (the slowest part of qrcode); any mask decodes.
    code = qrcode.QRCode(error_correction=ERROR_CORRECT_M, border=4, mask_pattern=0)
    code.add_data(data)
    code.make(fit=True)
    return code.get_matrix()


class QRCodeFlowable(Flowable):
    """A square QR code of side ``size`` points; dark modules are drawn as merged horizontal runs."""

    def __init__(self, data: str, size: float, color=None) -> None:
        super().__init__()
        self.matrix = qr_matrix(data)
        self.size = size
        self.color = color
        self.width = self.height = size

    def draw(self) -> None:
        canvas = self.canv
        count = len(self.matrix)
        module = self.size / count
        canvas.saveState()
        canvas.setFillColorRGB(1, 1, 1)
        canvas.rect(0, 0, self.size, self.size, stroke=0, fill=1)
        if self.color is not None:
            canvas.setFillColor(self.color)
        else:
            canvas.setFillColorRGB(0, 0, 0)
        path = canvas.beginPath()
        for row_index, row in enumerate(self.matrix):
            y = self.size - (row_index + 1) * module
            column = 0
            while column < count:
                if row[column]:
                    start = column
                    while column < count and row[column]:
                        column += 1
                    path.rect(start * module, y, (column - start) * module, module)
                else:
                    column += 1
        canvas.drawPath(path, stroke=0, fill=1)
        canvas.restoreState()
