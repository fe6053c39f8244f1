"""Image layout shared by the cameras and the overlay: margins and the size scale.

Every view keeps a title band at the top, a legend column on the right and a thin bottom
margin clear of the picture; the cameras fit the picture into what is left, the overlay
draws into the margins. Line widths and font sizes are given for an image
:data:`REFERENCE_HEIGHT` pixels high and scaled with the image (:func:`size_scale`).
"""

from __future__ import annotations

__all__ = ["BOTTOM_MARGIN", "LEGEND_COLUMN", "REFERENCE_HEIGHT", "TITLE_BAND", "size_scale"]

#: Line widths and font sizes are given for this image height and scaled with it.
REFERENCE_HEIGHT = 1200
#: Fraction of the image width kept free on the right of a plan view for the legend.
LEGEND_COLUMN = 0.25
#: Image fractions kept for the title (top) and the plot's bottom margin.
TITLE_BAND = 0.10
BOTTOM_MARGIN = 0.03


def size_scale(size) -> float:
    """Factor for line widths and font sizes of an image ``size`` = (width, height) px."""
    return max(0.25, size[1] / REFERENCE_HEIGHT)
